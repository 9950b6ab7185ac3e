import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { log } from '#shared/logger.ts';
import { currentRequestContext } from '#shared/request-context.ts';
import { errorResult, internalErrorResult } from './errors.ts';
import type { GroupMiddleware, GroupRequest } from './request-middlewares.ts';
import { type HttpResult, type LambdaResult, toLambdaResult } from './responses.ts';
import type { Router } from './router.ts';

/**
 * The steps of the one pipeline that shape every answer, one concern each, in the register
 * of middy's http-error-handler. middy runs `after` and `onError` steps in the reverse of
 * their `use` order, and after an error only the `onError` steps, so each step that must
 * touch every answer, error or not, does the same in both.
 */

/** Names the request (API Gateway's id, else Lambda's, else a fresh one) and starts its clock. */
export function requestId(): GroupMiddleware {
  return {
    before: async (request) => {
      const { event, context } = request;
      context.requestId = event.requestContext?.requestId || context.awsRequestId || randomUUID();
      context.startedAt = performance.now();
    },
  };
}

/** A domain or HTTP error as its answer (shared/http/errors.ts); anything else is left for `internalError`. */
export function errorMapping(): GroupMiddleware {
  return {
    onError: async (request) => {
      const result = errorResult(request.error);
      if (result) request.response = result;
    },
  };
}

/**
 * The last word on anything unexpected: a 500 that names the request id and exposes nothing
 * else; its cause goes to the log line only.
 */
export function internalError(): GroupMiddleware {
  return {
    onError: async (request) => {
      if (request.response !== undefined) return;
      const { error } = request;
      const failure = error instanceof Error ? error : new Error(String(error));
      request.context.failure = { name: failure.name, message: failure.message, stack: failure.stack };
      request.response = internalErrorResult(request.context.requestId);
    },
  };
}

/** Hands a claimed Idempotency-Key its answer, whatever it is (the domain decides what it keeps). */
export function finishIdempotency(): GroupMiddleware {
  const finish = async ({ context, response }: GroupRequest) => {
    if (!context.finishIdempotent || response === undefined) return;
    const { status, headers, body } = response as HttpResult;
    try {
      await context.finishIdempotent({ status, headers, body });
    } catch (error) {
      // The answer stands; the key stays claimed until its lock runs out, then a retry runs again.
      log({
        level: 'error',
        msg: 'idempotency: could not keep the answer',
        requestId: context.requestId,
        error: String(error),
      });
    }
  };
  return { after: finish, onError: finish };
}

/** The answer as API Gateway takes it (JSON serialized); the answer made is kept for the log line. */
export function lambdaAnswer(): GroupMiddleware {
  const serialize = async (request: GroupRequest) => {
    if (request.response === undefined) return;
    const outcome = request.response as HttpResult;
    request.context.outcome = outcome;
    request.response = toLambdaResult(outcome);
  };
  return { after: serialize, onError: serialize };
}

const publicHeaders = {
  'access-control-allow-origin': '*',
  // None of these is CORS-safelisted: among them Retry-After lets the widget read a 429's wait,
  // and Pricing-Experiment tells it to ask again for its visitor's variant.
  'access-control-expose-headers': 'ETag, X-Request-Id, Retry-After, Pricing-Experiment',
};

/**
 * What every answer carries, whoever made it (an action, an error, the local server's early
 * 413): its request id and `nosniff`; then, by the route and never by the raw path (which may
 * hold a stage or a base path), CORS on public answers, and `no-store` on all others unless
 * the answer chose its own caching.
 */
export function withSharedHeaders(
  response: LambdaResult,
  event: APIGatewayProxyEventV2,
  requestId: string,
  router: Router,
): LambdaResult {
  const { headers } = response;
  headers['x-request-id'] = requestId;
  headers['x-content-type-options'] = 'nosniff';
  if (router.isPublicRequest(event.routeKey, event.rawPath)) Object.assign(headers, publicHeaders);
  else headers['cache-control'] ??= 'no-store';
  return response;
}

export function sharedHeaders(router: Router): GroupMiddleware {
  const add = async (request: GroupRequest) => {
    if (request.response === undefined) return;
    withSharedHeaders(request.response as LambdaResult, request.event, request.context.requestId, router);
  };
  return { after: add, onError: add };
}

/**
 * A HEAD's answer: its GET's (the same status and headers, 304 included), without the body,
 * and with the Content-Length that body would have had (RFC 9110 9.3.2, 8.6). Errors too: a
 * HEAD of an unknown share is a 404 with no body, of a POST-only path a 405 with its Allow.
 */
export function headOf({ body, isBase64Encoded, ...response }: LambdaResult): LambdaResult {
  if (body === undefined) return response;
  const length = Buffer.byteLength(body, isBase64Encoded ? 'base64' : 'utf8');
  return { ...response, headers: { ...response.headers, 'content-length': String(length) } };
}

export function headWithoutBody(): GroupMiddleware {
  const strip = async (request: GroupRequest) => {
    if (request.response === undefined || request.event.requestContext?.http?.method !== 'HEAD') return;
    request.response = headOf(request.response as LambdaResult);
  };
  return { after: strip, onError: strip };
}

const errorOf = (outcome: HttpResult | undefined) =>
  ((outcome?.body ?? {}) as { error?: { code?: string; message?: string } }).error;

const shortened = (path: string | undefined) =>
  path === undefined || path.length <= 200 ? path : `${path.slice(0, 200)}…`;

/** One JSON line per request, written once its answer is final. Never a key, a secret or a body. */
export function requestLog(group: string, router: Router): GroupMiddleware {
  const write = async ({ event, context, response }: GroupRequest) => {
    const status = (response as LambdaResult | undefined)?.statusCode ?? 500;
    const error = errorOf(context.outcome);
    // A 502 is the payment provider failing, not a bug: its code and (scrubbed) message
    // belong in the log line so an operator can see why without a stack.
    const failure =
      context.failure ??
      (status >= 500 && error ? { name: error.code ?? 'error', message: error.message ?? '' } : undefined);
    log({
      level: status >= 500 ? 'error' : 'info',
      msg: 'request',
      requestId: context.requestId,
      // Lambda's own id too: it joins this line to the platform's START/REPORT lines.
      ...(context.awsRequestId ? { awsRequestId: context.awsRequestId } : {}),
      group,
      method: event.requestContext?.http?.method,
      route: event.routeKey,
      status,
      durationMs: Math.round((performance.now() - context.startedAt) * 10) / 10,
      dynamoRequests: currentRequestContext()?.dynamoRequests,
      ...(context.caller ?? {}),
      ...(status >= 400 ? { errorCode: error?.code } : {}),
      // The path only where no route matched: a matched route's template says where it went.
      ...(router.find(event.routeKey) ? {} : { path: shortened(event.rawPath) }),
      ...(failure ? { error: failure } : {}),
    });
  };
  return { after: write, onError: write };
}
