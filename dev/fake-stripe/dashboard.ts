import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Store } from './store.ts';
import { cancelSubscription, changeSubscription } from './subscriptions.ts';
import type { FakeSubscription } from './types.ts';
import { escapeHtml, htmlPage, postedForm, readBody, sendPage, sendText } from './wire.ts';

// The fake's dashboard: every subscription, with the two changes a Stripe dashboard user makes
// after the sale (seats or plan, and cancel), each sent to the account's webhook endpoints.
//   GET  /dashboard                                 the page
//   POST /dashboard/subscriptions/{id}/update       form fields: seats, planId
//   POST /dashboard/subscriptions/{id}/cancel

function row(subscription: FakeSubscription): string {
  const id = escapeHtml(subscription.id);
  const quantity = subscription.items.data[0]?.quantity ?? 1;
  const { customerId = '', planId = '' } = subscription.metadata;
  const live = subscription.status !== 'canceled';
  return `<tr>
<td>${id}</td><td>${escapeHtml(customerId || subscription.customer)}</td><td>${escapeHtml(subscription.status)}</td>
<td>${
    live
      ? `<form method="post" action="/dashboard/subscriptions/${id}/update">
<label>Seats <input name="seats" type="number" min="1" value="${quantity}"></label>
<label>Plan id <input name="planId" value="${escapeHtml(planId)}"></label>
<button type="submit">Update</button></form>`
      : ''
  }</td>
<td>${live ? `<form method="post" action="/dashboard/subscriptions/${id}/cancel"><button type="submit">Cancel subscription</button></form>` : ''}</td>
</tr>`;
}

function page(store: Store): string {
  const rows = [...store.subscriptions.values()].reverse().map(row).join('\n');
  return htmlPage(
    'Fake Stripe Dashboard',
    `<table>
<thead><tr><th>Subscription</th><th>Customer</th><th>Status</th><th>Change</th><th>Cancel</th></tr></thead>
<tbody>
${rows || '<tr><td colspan="5">No subscriptions yet.</td></tr>'}
</tbody>
</table>`,
  );
}

export async function handleDashboard(store: Store, req: IncomingMessage, res: ServerResponse, path: string) {
  const { text } = await readBody(req);
  if (path === '/dashboard' || path === '/dashboard/') {
    if (req.method === 'GET' || req.method === 'HEAD') return sendPage(req, res, () => page(store));
    return sendText(res, 405, 'Method not allowed\n', { allow: 'GET' });
  }
  const match = /^\/dashboard\/subscriptions\/([^/]+)\/(update|cancel)$/.exec(path);
  const subscription = match ? store.subscriptions.get(decodeURIComponent(match[1] ?? '')) : undefined;
  if (!match || !subscription) return sendText(res, 404, 'No such page or subscription\n');
  if (req.method !== 'POST') return sendText(res, 405, 'Method not allowed\n', { allow: 'POST' });
  if (match[2] === 'cancel') {
    cancelSubscription(store, subscription);
  } else {
    const form = postedForm(text);
    if (!form) return sendText(res, 400, 'Malformed form\n');
    const seats = Number(form.seats);
    const planId = typeof form.planId === 'string' ? form.planId.trim() : '';
    if (form.seats !== undefined && !(Number.isInteger(seats) && seats >= 1 && seats <= 999_999)) {
      return sendText(res, 400, 'Seats must be a whole number of at least 1\n');
    }
    changeSubscription(store, subscription, {
      ...(form.seats !== undefined ? { quantity: seats } : {}),
      ...(planId ? { metadata: { planId } } : {}),
    });
  }
  res.writeHead(303, { location: '/dashboard' });
  res.end();
}
