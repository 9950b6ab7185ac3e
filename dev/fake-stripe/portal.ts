import type { IncomingMessage, ServerResponse } from 'node:http';
import { invalid, missing, noSuch } from './errors.ts';
import type { Params } from './form.ts';
import { now, randomId } from './ids.ts';
import { repriceItem } from './item-price.ts';
import { absoluteUrl, rejectUnknown, text } from './params.ts';
import { type Store, withoutInternal } from './store.ts';
import { changeSubscription } from './subscriptions.ts';
import type { FakeSubscription } from './types.ts';
import { escapeHtml, htmlPage, postedForm, readBody, sendPage, sendText } from './wire.ts';

// Billing portal sessions (`POST /v1/billing_portal/sessions`) and the page their `url` leads
// to, where a person picks another plan (a plan id and its price), cancels at period end or
// takes that back, each change sent to the account's webhook endpoints as Stripe's portal does:
//   GET  /portal/{id}                                  the page
//   POST /portal/{id}/subscriptions/{sub}/plan         form fields: planId, unitAmount (minor units)
//   POST /portal/{id}/subscriptions/{sub}/cancel       cancel at period end
//   POST /portal/{id}/subscriptions/{sub}/resume       take that back

export function createPortalSession(store: Store, account: string, params: Params, portalUrl: (id: string) => string) {
  rejectUnknown(params, ['customer', 'return_url', 'configuration', 'locale'], '');
  const customer = text(params.customer, 'customer', false);
  if (!customer) throw missing('customer');
  const known = [...store.subscriptions.values()].some(
    (subscription) => subscription.internal.account === account && subscription.customer === customer,
  );
  if (!known) throw noSuch('customer', customer, 'customer');
  const returnUrl = absoluteUrl(params.return_url, 'return_url', false) ?? null;
  const id = randomId('bps_');
  const session = {
    id,
    object: 'billing_portal.session' as const,
    customer,
    livemode: account.includes('_live_'),
    return_url: returnUrl,
    url: portalUrl(id),
    created: now(),
    internal: { account },
  };
  store.portalSessions.set(id, session);
  return withoutInternal(session);
}

function row(id: string, subscription: FakeSubscription): string {
  const sub = escapeHtml(subscription.id);
  const item = subscription.items.data[0];
  const action = (what: string) => `/portal/${escapeHtml(id)}/subscriptions/${sub}/${what}`;
  const live = subscription.status !== 'canceled';
  return `<section>
<h2>Subscription ${sub}</h2>
<p>Plan ${escapeHtml(subscription.metadata.planId ?? '')}: ${item ? `${item.price.unit_amount} ${escapeHtml(subscription.currency)} per ${item.price.recurring?.interval ?? ''}` : ''}; ${escapeHtml(subscription.status)}${subscription.cancel_at_period_end ? ', cancels at period end' : ''}</p>
${
  live
    ? `<form method="post" action="${action('plan')}">
<label>Plan id <input name="planId" required value="${escapeHtml(subscription.metadata.planId ?? '')}"></label>
<label>Price (minor units) <input name="unitAmount" type="number" min="0" required value="${item?.price.unit_amount ?? 0}"></label>
<button type="submit">Change plan</button></form>
${
  subscription.cancel_at_period_end
    ? `<form method="post" action="${action('resume')}"><button type="submit">Renew plan</button></form>`
    : `<form method="post" action="${action('cancel')}"><button type="submit">Cancel plan</button></form>`
}`
    : ''
}
</section>`;
}

function page(store: Store, id: string): string {
  const session = store.portalSessions.get(id);
  if (!session) return '';
  const subscriptions = [...store.subscriptions.values()].filter(
    (s) => s.internal.account === session.internal.account && s.customer === session.customer,
  );
  return htmlPage(
    'Fake Stripe billing portal',
    `${subscriptions.map((s) => row(id, s)).join('\n') || '<p>No subscriptions.</p>'}
${session.return_url ? `<p><a href="${escapeHtml(session.return_url)}">Return</a></p>` : ''}`,
  );
}

export async function handlePortal(store: Store, req: IncomingMessage, res: ServerResponse, path: string) {
  const { text: raw } = await readBody(req);
  const match = /^\/portal\/([^/]+)(?:\/subscriptions\/([^/]+)\/(plan|cancel|resume))?\/?$/.exec(path);
  const session = match ? store.portalSessions.get(decodeURIComponent(match[1] ?? '')) : undefined;
  if (!match || !session) return sendText(res, 404, 'No such billing portal session\n');
  const [, id = '', subId, what] = match;
  if (!subId) {
    if (req.method === 'GET' || req.method === 'HEAD') return sendPage(req, res, () => page(store, id));
    return sendText(res, 405, 'Method not allowed\n', { allow: 'GET' });
  }
  if (req.method !== 'POST') return sendText(res, 405, 'Method not allowed\n', { allow: 'POST' });
  const subscription = store.subscriptions.get(decodeURIComponent(subId));
  if (
    !subscription ||
    subscription.customer !== session.customer ||
    subscription.internal.account !== session.internal.account
  ) {
    return sendText(res, 404, 'No such subscription\n');
  }
  if (what === 'cancel' || what === 'resume') {
    changeSubscription(store, subscription, { cancelAtPeriodEnd: what === 'cancel' });
  } else {
    const form = postedForm(raw);
    if (!form) return sendText(res, 400, 'Malformed form\n');
    const planId = typeof form.planId === 'string' ? form.planId.trim() : '';
    const unitAmount = Number(form.unitAmount);
    if (!/^[1-9][0-9]*$/.test(planId) || !Number.isInteger(unitAmount) || unitAmount < 0) {
      return sendText(res, 400, 'A plan id and a whole price in minor units are required\n');
    }
    const item = subscription.items.data[0];
    if (!item) throw invalid('This subscription has no items.');
    // The portal prorates a plan switch, as Stripe's default portal configuration does.
    repriceItem(subscription, { ...item.price, id: randomId('price_'), unit_amount: unitAmount }, 'create_prorations');
    changeSubscription(store, subscription, { metadata: { planId, planVersion: '' } });
  }
  res.writeHead(303, { location: `/portal/${encodeURIComponent(id)}` });
  res.end();
}
