import type { IncomingMessage, ServerResponse } from 'node:http';
import { parseForm } from './form.ts';
import type { Store } from './store.ts';
import type { FakeSession } from './types.ts';
import { readBody } from './wire.ts';

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

function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function substituteSessionId(url: string, id: string): string {
  // Only the literal placeholder: a URL-encoded `%7BCHECKOUT_SESSION_ID%7D` stays as is on Stripe too.
  return url.replaceAll('{CHECKOUT_SESSION_ID}', id);
}

function payPage(session: FakeSession): string {
  const first = session.internal.lineItems[0];
  const product = first ? first.description : 'Setup';
  const amount =
    session.amount_total !== null && session.currency ? formatAmount(session.amount_total, session.currency) : '';
  const recurring = first?.price.recurring
    ? ` per ${first.price.recurring.interval_count > 1 ? `${first.price.recurring.interval_count} ` : ''}${first.price.recurring.interval}${first.price.recurring.interval_count > 1 ? 's' : ''}`
    : '';
  const trial = session.internal.trialPeriodDays ? `<p>${session.internal.trialPeriodDays}-day free trial</p>` : '';
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
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Fake Stripe Checkout</title></head>
<body>
<h1>Fake Stripe Checkout</h1>
<p class="product">${escapeHtml(product)}</p>
<p class="amount">${escapeHtml(amount)}${escapeHtml(recurring)}</p>
${trial}
${body}
</body>
</html>
`;
}

/** The hosted page: GET shows it, POST is the customer paying, then Stripe's 303 to success_url. */
export async function handlePay(store: Store, req: IncomingMessage, res: ServerResponse, id: string): Promise<void> {
  const { text: raw } = await readBody(req);
  const session = store.sessions.get(id);
  if (!session) {
    res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
    res.end(`No such checkout session: ${id}\n`);
    return;
  }
  if (req.method === 'GET' || req.method === 'HEAD') {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(req.method === 'HEAD' ? undefined : payPage(session));
    return;
  }
  if (req.method !== 'POST') {
    res.writeHead(405, { allow: 'GET, POST', 'content-type': 'text/plain; charset=utf-8' });
    res.end('Method not allowed\n');
    return;
  }
  let email: string | undefined;
  try {
    const form = parseForm(raw);
    email = typeof form.email === 'string' && form.email !== '' ? form.email : undefined;
  } catch {
    email = undefined;
  }
  // A second submit (double click, back button) just lands on the success page again.
  if (session.status === 'open') store.complete(id, { email });
  res.writeHead(303, { location: substituteSessionId(session.success_url, session.id) });
  res.end();
}
