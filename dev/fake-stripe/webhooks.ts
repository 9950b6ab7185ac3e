import { createHmac } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { invalid, noSuch } from './errors.ts';
import type { Params } from './form.ts';
import { FAKE_STRIPE_API_VERSION, now, randomId } from './ids.ts';
import { absoluteUrl, list, name, rejectUnknown, text } from './params.ts';
import type { FakeDelivery, FakeWebhookEndpoint } from './types.ts';

// Webhook endpoints per account, events, and their delivery as Stripe does it: a JSON POST
// signed `Stripe-Signature: t=<unix>,v1=<HMAC-SHA256(secret, "<t>.<body>")>` with the
// endpoint's own signing secret, retried (with backoff) while the endpoint fails.

export const FAKE_EVENT_TYPES = [
  'checkout.session.completed',
  'customer.subscription.created',
  'customer.subscription.updated',
  'customer.subscription.deleted',
] as const;

/**
 * Stripe's signing secrets are random. The fake's are derived from the account's key and the
 * URL, so an endpoint registered again after a restart (the fake keeps endpoints in memory)
 * has the secret the project already holds. Only the key's holder can derive it.
 */
export function signingSecretFor(account: string, url: string): string {
  return `whsec_${createHmac('sha256', account).update(url, 'utf8').digest('hex').slice(0, 32)}`;
}

/** Stripe's Stripe-Signature header for a payload. */
export function signPayload(payload: string, secret: string, timestamp = now()): string {
  const v1 = createHmac('sha256', secret).update(`${timestamp}.${payload}`, 'utf8').digest('hex');
  return `t=${timestamp},v1=${v1}`;
}

/** `retryDelaysMs`: the waits between attempts (Stripe's are hours; a local run wants seconds). */
export function createWebhooks(retryDelaysMs: readonly number[] = [200, 1000, 3000]) {
  const endpoints = new Map<string, FakeWebhookEndpoint>();
  const deliveries: FakeDelivery[] = [];
  const inFlight = new Set<Promise<void>>();
  // Each endpoint gets an account's events one at a time, in the order they happened.
  const queues = new Map<string, Promise<void>>();

  async function attempt(endpoint: FakeWebhookEndpoint, payload: string): Promise<number> {
    try {
      const response = await fetch(endpoint.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json; charset=utf-8',
          'user-agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks)',
          'stripe-signature': signPayload(payload, endpoint.secret),
        },
        body: payload,
        signal: AbortSignal.timeout(10_000),
      });
      await response.arrayBuffer();
      return response.status;
    } catch {
      return 0;
    }
  }

  async function deliver(endpoint: FakeWebhookEndpoint, event: Params & { id: string; type: string }) {
    const payload = JSON.stringify(event, null, 2);
    const record: FakeDelivery = {
      endpoint: endpoint.id,
      url: endpoint.url,
      eventId: event.id,
      type: event.type,
      attempts: [],
      done: false,
    };
    deliveries.push(record);
    for (let i = 0; ; i++) {
      const status = await attempt(endpoint, payload);
      record.attempts.push(status);
      // Stripe retries anything but a 2xx; so does this fake, on answers of 5xx or none,
      // and stops on a 4xx (a bad signature or an unknown project will not get better).
      const retry = status === 0 || status >= 500;
      if (!retry || i >= retryDelaysMs.length) break;
      await sleep(retryDelaysMs[i]);
    }
    record.done = true;
  }

  return {
    endpoints,
    deliveries,
    create(account: string, params: Params): FakeWebhookEndpoint {
      rejectUnknown(params, ['url', 'enabled_events', 'description', 'api_version', 'metadata'], '');
      const url = absoluteUrl(params.url, 'url', true) ?? '';
      const events = (list(params.enabled_events, 'enabled_events') ?? []).map(
        (value, i) => text(value, name('enabled_events', i), true) ?? '',
      );
      if (events.length === 0) throw invalid('Missing required param: enabled_events.', 'enabled_events');
      for (const type of events) {
        if (type !== '*' && !(FAKE_EVENT_TYPES as readonly string[]).includes(type)) {
          throw invalid(`Invalid enabled_events: ${type} is not a type this fake sends.`, 'enabled_events');
        }
      }
      const endpoint: FakeWebhookEndpoint = {
        id: randomId('we_'),
        object: 'webhook_endpoint',
        url,
        enabled_events: events,
        status: 'enabled',
        livemode: account.includes('_live_'),
        created: now(),
        secret: signingSecretFor(account, url),
        internal: { account },
      };
      endpoints.set(endpoint.id, endpoint);
      return endpoint;
    },
    list(account: string) {
      const data = [...endpoints.values()]
        .filter((e) => e.internal.account === account)
        .map(({ secret: _secret, internal: _internal, ...rest }) => rest);
      return { object: 'list', data, has_more: false, url: '/v1/webhook_endpoints' };
    },
    remove(account: string, id: string) {
      const endpoint = endpoints.get(id);
      if (!endpoint || endpoint.internal.account !== account) throw noSuch('webhook_endpoint', id, 'id');
      endpoints.delete(id);
      return { id, object: 'webhook_endpoint', deleted: true };
    },
    /** Sends an event of the account to each of its endpoints that takes the type. */
    emit(account: string, type: string, object: unknown) {
      const event = {
        id: randomId('evt_'),
        object: 'event',
        api_version: FAKE_STRIPE_API_VERSION,
        created: now(),
        type,
        livemode: account.includes('_live_'),
        pending_webhooks: 0,
        data: { object: JSON.parse(JSON.stringify(object)) },
      };
      for (const endpoint of endpoints.values()) {
        if (endpoint.internal.account !== account) continue;
        if (!endpoint.enabled_events.includes('*') && !endpoint.enabled_events.includes(type)) continue;
        const previous = queues.get(endpoint.id) ?? Promise.resolve();
        const next = previous.then(() => deliver(endpoint, event));
        queues.set(endpoint.id, next);
        inFlight.add(next);
        void next.finally(() => inFlight.delete(next));
      }
    },
    /** Resolves once every delivery started so far has succeeded or given up. */
    async settled() {
      while (inFlight.size > 0) await Promise.all([...inFlight]);
    },
    clear() {
      endpoints.clear();
      deliveries.length = 0;
      queues.clear();
    },
  };
}
