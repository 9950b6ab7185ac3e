import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Store } from './store.ts';
import type { FakeSession } from './types.ts';
import { escapeHtml, htmlPage, postedForm, readBody, sendPage, sendText } from './wire.ts';

// The hosted pay page a session's `url` leads to.

function formatAmount(amount: number, currency: string): string {
  try {
    const format = new Intl.NumberFormat('en-US', { style: 'currency', currency: currency.toUpperCase() });
    const digits = format.resolvedOptions().maximumFractionDigits ?? 2;
    return format.format(amount / 10 ** digits);
  } catch {
    return `${(amount / 100).toFixed(2)} ${currency.toUpperCase()}`;
  }
}

function substituteSessionId(url: string, id: string): string {
  // Only the literal placeholder: a URL-encoded `%7BCHECKOUT_SESSION_ID%7D` stays as is on Stripe too.
  return url.replaceAll('{CHECKOUT_SESSION_ID}', id);
}

/**
 * What the page states, as Stripe's does: the price of each period (what a trial is followed
 * by, not the trial's 0), and with a trial what is due today.
 */
function priceLines(session: FakeSession): { amount: string; trial: string } {
  const { lineItems, trialPeriodDays } = session.internal;
  const first = lineItems[0];
  if (!first || session.currency === null) return { amount: '', trial: '' };
  const each = lineItems.reduce((sum, item) => sum + item.price.unit_amount * item.quantity, 0);
  const recurring = first.price.recurring;
  const period = recurring
    ? ` per ${recurring.interval_count > 1 ? `${recurring.interval_count} ` : ''}${recurring.interval}${recurring.interval_count > 1 ? 's' : ''}`
    : '';
  const amount = `${formatAmount(each, session.currency)}${period}`;
  if (!trialPeriodDays) return { amount, trial: '' };
  const today = formatAmount(session.amount_total ?? 0, session.currency);
  return {
    amount,
    trial: `<p class="trial">${trialPeriodDays}-day free trial, then ${escapeHtml(amount)}; ${escapeHtml(today)} due today</p>`,
  };
}

function payPage(session: FakeSession): string {
  const first = session.internal.lineItems[0];
  const product = first ? first.description : 'Setup';
  const { amount, trial } = priceLines(session);
  const body =
    session.status === 'open'
      ? `<form method="post">
<label>Email <input type="email" name="email" value="${escapeHtml(session.customer_email ?? '')}"></label>
<button type="submit">Pay</button>
</form>
${session.cancel_url ? `<p><a href="${escapeHtml(session.cancel_url)}">Cancel</a></p>` : ''}`
      : `<p>This Checkout Session is ${session.status}.</p>
<p><a href="${escapeHtml(substituteSessionId(session.success_url, session.id))}">Continue</a></p>
<p><a href="/dashboard">Change or cancel subscriptions (fake dashboard)</a></p>`;
  return htmlPage(
    'Fake Stripe Checkout',
    `<p class="product">${escapeHtml(product)}</p>
<p class="amount">${escapeHtml(amount)}</p>
${trial}
${body}`,
  );
}

/** The hosted page: GET shows it, POST is the customer paying, then Stripe's 303 to success_url. */
export async function handlePay(store: Store, req: IncomingMessage, res: ServerResponse, id: string): Promise<void> {
  const { text: raw } = await readBody(req);
  const session = store.sessions.get(id);
  if (!session) return sendText(res, 404, `No such checkout session: ${id}\n`);
  if (req.method === 'GET' || req.method === 'HEAD') return sendPage(req, res, () => payPage(session));
  if (req.method !== 'POST') return sendText(res, 405, 'Method not allowed\n', { allow: 'GET, POST' });
  const form = postedForm(raw);
  const email = typeof form?.email === 'string' && form.email !== '' ? form.email : undefined;
  // A second submit (double click, back button) just lands on the success page again.
  if (session.status === 'open') store.complete(id, { email });
  res.writeHead(303, { location: substituteSessionId(session.success_url, session.id) });
  res.end();
}
