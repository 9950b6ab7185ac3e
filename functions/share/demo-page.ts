import { isCustomerId } from '#domain/customers/customer-id.ts';
import { NotFoundError } from '#domain/errors.ts';
import { isShareIdShaped } from '#domain/share/share.ts';
import type { HttpResult } from '#http/responses.ts';

/**
 * A plain host page around the widget, as a customer would paste it: the widget comes from
 * this service's /widget.js and reads this service's API. The policy lets nothing else
 * script the page; styles and fonts may come from https (a project's customCSS may import fonts).
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "connect-src 'self'",
  "style-src 'self' 'unsafe-inline' https:",
  'font-src https: data:',
  'img-src https: data:',
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** Stripe's checkout session ids: `cs_test_…` or `cs_live_…`, letters and digits. */
const sessionIdPattern = /^cs_[A-Za-z0-9_]{1,200}$/;

/**
 * The demo page; back from a checkout (the seeded project's success URL comes here with
 * `session_id`), it links to that session's receipt. `?customer=` names the buyer (the
 * embed's `data-customer-id`), so the sale is linked to that customer id.
 */
export function demoPage(shareId: string, sessionId: string | undefined, customerId?: string): HttpResult {
  // Only a share-id-shaped value reaches the markup; it cannot hold a quote or a bracket.
  if (!isShareIdShaped(shareId)) throw new NotFoundError('No pricing page has this share id.');
  // The same for the session id: anything else is simply not mentioned.
  const receipt =
    sessionId && sessionIdPattern.test(sessionId)
      ? `<p class="host-note done">Checkout complete. Its receipt: <a href="../api/payments/receipt?session_id=${sessionId}&amp;shareId=${shareId}">GET /api/payments/receipt?session_id=${sessionId}&amp;shareId=${shareId}</a></p>`
      : '';
  // A customer id's characters (A-Z a-z 0-9 . _ : @ -) need no escaping in an attribute.
  const customer = customerId && isCustomerId(customerId) ? ` data-customer-id="${customerId}"` : '';
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Pricing demo</title>
<style>
  body { margin: 0; padding: 3rem 1.5rem; background: #F3F4F6; font-family: system-ui, sans-serif; color: #111827; }
  main { max-width: 72rem; margin: 0 auto; }
  h1 { margin: 0 0 .5rem; font-size: 1rem; text-align: center; }
  .host-note { margin: 0 0 2rem; color: #4B5563; font-size: .875rem; text-align: center; }
  .done { color: #065F46; overflow-wrap: anywhere; }
</style>
</head>
<body>
<main>
  <h1>Pricing demo</h1>
  <p class="host-note">Demo host page: the widget below is embedded with the two lines the README gives.</p>
  ${receipt}
  <div data-pricing-id="${shareId}"${customer}></div>
</main>
<script src="../widget.js" async></script>
</body>
</html>
`;
  return {
    status: 200,
    raw: html,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      // Back from a checkout, the address names a customer's session: never kept by a cache.
      'cache-control': sessionId === undefined && customerId === undefined ? 'public, max-age=300' : 'no-store',
      'content-security-policy': CONTENT_SECURITY_POLICY,
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
    },
  };
}
