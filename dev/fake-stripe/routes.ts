import { unrecognized } from './errors.ts';
import { decodeComponentSafe } from './form.ts';
import { createPreview } from './invoices.ts';
import { expandList, rejectUnknown } from './params.ts';
import { createPortalSession } from './portal.ts';
import { lineItemList, type Store, withoutInternal } from './store.ts';
import { cancelSubscription, changeSubscription, subscriptionFor, updateParams } from './subscriptions.ts';
import type { RecordedRequest } from './types.ts';
import type { Reply } from './wire.ts';

/** The v1 endpoints the fake serves; anything else is Stripe's "Unrecognized request URL". */
export function route(store: Store, method: string, path: string, account: string, recorded: RecordedRequest): Reply {
  const segments = path.split('/').slice(2).map(decodeComponentSafe);
  if (segments.includes('')) throw unrecognized(method, path);
  const [resource, id, sub, ...rest] = segments;
  if (resource === 'checkout' && id === 'sessions' && rest.length === 0) {
    if (sub === undefined && method === 'POST')
      return { status: 200, body: store.createSession(account, recorded.body) };
    if (sub !== undefined && method === 'GET') {
      rejectUnknown(recorded.query, ['expand'], '');
      const expand = expandList(recorded.query.expand, ['line_items', 'subscription']);
      return { status: 200, body: store.renderSession(store.sessionFor(account, sub), expand) };
    }
  }
  if (resource === 'checkout' && id === 'sessions' && sub !== undefined && method === 'GET') {
    if (rest.length === 1 && rest[0] === 'line_items') {
      rejectUnknown(recorded.query, ['limit', 'starting_after', 'ending_before', 'expand'], '');
      return { status: 200, body: lineItemList(store.sessionFor(account, sub)) };
    }
  }
  if (resource === 'subscriptions' && id !== undefined && sub === undefined) {
    const subscription = subscriptionFor(store, account, id);
    if (method === 'GET') {
      rejectUnknown(recorded.query, ['expand'], '');
      expandList(recorded.query.expand, []);
      return { status: 200, body: withoutInternal(subscription) };
    }
    if (method === 'POST') {
      return { status: 200, body: changeSubscription(store, subscription, updateParams(recorded.body, subscription)) };
    }
    if (method === 'DELETE') return { status: 200, body: cancelSubscription(store, subscription) };
  }
  if (resource === 'invoices' && id === 'create_preview' && sub === undefined && method === 'POST') {
    return { status: 200, body: createPreview(store, account, recorded.body) };
  }
  if (resource === 'billing_portal' && id === 'sessions' && sub === undefined && method === 'POST') {
    return { status: 200, body: createPortalSession(store, account, recorded.body, store.portalUrl) };
  }
  if (resource === 'webhook_endpoints' && sub === undefined) {
    if (id === undefined && method === 'POST') {
      return { status: 200, body: withoutInternal(store.webhooks.create(account, recorded.body)) };
    }
    if (id === undefined && method === 'GET') return { status: 200, body: store.webhooks.list(account) };
    if (id !== undefined && method === 'DELETE') return { status: 200, body: store.webhooks.remove(account, id) };
  }
  throw unrecognized(method, path);
}
