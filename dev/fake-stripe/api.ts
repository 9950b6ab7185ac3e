import type { IncomingMessage, ServerResponse } from 'node:http';
import { apiKeyOf, authenticate } from './auth.ts';
import { ApiError, type ApiErrorBody, invalid } from './errors.ts';
import { type Params, parseForm } from './form.ts';
import { fingerprint, IdempotencyStore } from './idempotency.ts';
import { FAKE_STRIPE_API_VERSION } from './ids.ts';
import { route } from './routes.ts';
import type { Store } from './store.ts';
import type { FakeFailure, RecordedRequest } from './types.ts';
import { headerMap, readBody, send, sendError } from './wire.ts';

function defaultFailureMessage(status: number): string {
  if (status === 429)
    return 'Too many requests hit the API too quickly. We recommend an exponential backoff of your requests.';
  if (status >= 500) return 'An unknown error occurred (injected by the fake Stripe).';
  return 'Request failed (injected by the fake Stripe).';
}

/** The /v1 API: records each request, plays injected failures and hangs, then authenticates and routes. */
export function createApi(store: Store) {
  const requests: RecordedRequest[] = [];
  const idempotency = new IdempotencyStore();
  const failures: FakeFailure[] = [];
  let hangs = 0;
  const hanging = new Set<ServerResponse>();

  async function handle(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const method = req.method ?? 'GET';
    const headers = headerMap(req);
    const { text: raw, tooLarge } = await readBody(req);
    const apiKey = apiKeyOf(headers.authorization);
    const idempotencyKey = headers['idempotency-key'];
    let parseError: ApiError | undefined;
    const parse = (source: string): Params => {
      try {
        return parseForm(source);
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        parseError ??= error;
        return {};
      }
    };
    const query = parse(url.search.slice(1));
    const contentType = (headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
    let body: Params = {};
    if (tooLarge) {
      parseError = new ApiError(413, { type: 'invalid_request_error', message: 'Request entity too large.' });
    } else if (raw !== '' && contentType !== 'application/x-www-form-urlencoded') {
      parseError = invalid(
        `Invalid request: unsupported Content-Type ${headers['content-type'] ?? '(none)'}. If error persists and you need assistance, please contact support@stripe.com.`,
      );
    } else {
      body = parse(raw);
    }
    const recorded: RecordedRequest = {
      method,
      path: url.pathname,
      query,
      headers,
      apiKey,
      idempotencyKey,
      body,
    };
    requests.push(recorded);

    if (hangs > 0) {
      hangs--;
      hanging.add(res);
      res.on('close', () => hanging.delete(res));
      return;
    }
    const failure = failures.shift();
    if (failure) {
      const error: ApiErrorBody = {
        type: failure.type ?? (failure.status >= 500 ? 'api_error' : 'invalid_request_error'),
        message: failure.message ?? defaultFailureMessage(failure.status),
        ...(failure.code ? { code: failure.code } : {}),
      };
      send(res, failure.status, { error });
      return;
    }

    // Stripe ignores idempotency keys on GET and DELETE.
    const key = method === 'POST' ? idempotencyKey : undefined;
    const echo: Record<string, string> = {
      'stripe-version': headers['stripe-version'] ?? FAKE_STRIPE_API_VERSION,
    };
    if (key) echo['idempotency-key'] = key;
    try {
      const account = authenticate(apiKey);
      if (parseError) throw parseError;
      const requestFingerprint = fingerprint(method, url.pathname, body);
      const previous = key ? idempotency.previous(account, key, requestFingerprint) : undefined;
      if (previous) {
        send(res, previous.reply.status, previous.reply.body, {
          ...echo,
          'idempotent-replayed': 'true',
          'original-request': previous.requestId,
        });
        return;
      }
      const reply = route(store, method, url.pathname, account, recorded);
      if (key) {
        idempotency.save(account, key, {
          fingerprint: requestFingerprint,
          reply,
          requestId: String(res.getHeader('request-id')),
        });
      }
      send(res, reply.status, reply.body, echo);
    } catch (error) {
      const crashed = `Fake Stripe crashed: ${error instanceof Error ? error.message : String(error)}`;
      sendError(res, error instanceof ApiError ? error : new ApiError(500, { type: 'api_error', message: crashed }));
    }
  }

  return {
    requests,
    handle,
    failNext(error: FakeFailure, times: number) {
      for (let i = 0; i < times; i++) failures.push({ ...error });
    },
    hangNext(times: number) {
      hangs += times;
    },
    reset() {
      requests.length = 0;
      idempotency.clear();
      failures.length = 0;
      hangs = 0;
    },
    dropHanging() {
      for (const res of hanging) res.socket?.destroy();
      hanging.clear();
    },
  };
}
