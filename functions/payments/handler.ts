import { createCustomCheckout, createPlanCheckout } from '#domain/payments/checkout.ts';
import { getReceipt } from '#domain/payments/receipt.ts';
import { CustomCheckoutBody, IdempotencyKey, PlanCheckoutBody, ReceiptQuery } from '#domain/payments/schemas.ts';
import { parse } from '#domain/validation.ts';
import { createGroupHandler } from '#http/group-handler.ts';
import { preflight } from '#http/preflight.ts';
import { ok } from '#http/responses.ts';
import { keyring } from '#shared/secrets/keyring.ts';

// At init: a stage without a way to open payment keys fails its cold start with one line.
keyring();

const idempotencyKeyOf = (headers: Record<string, string | undefined>) =>
  parse(IdempotencyKey, headers['idempotency-key'], 'Idempotency-Key header');

/** Checkout links and receipts hold a customer's e-mail: no cache may keep them. */
const noStore = { 'cache-control': 'no-store' };
const checkoutHeaders = ['Content-Type', 'Idempotency-Key'];

/** The widget's purchase endpoints: public, through each project's own Stripe account. */
export const handler = createGroupHandler('payments', {
  'POST /api/payments/checkout': {
    body: 'required',
    run: async ({ body, headers }) => {
      const input = parse(PlanCheckoutBody, body);
      const session = await createPlanCheckout(input, idempotencyKeyOf(headers));
      return { ...ok(session), headers: noStore };
    },
  },
  'OPTIONS /api/payments/checkout': { run: preflight(['POST'], checkoutHeaders) },
  'POST /api/payments/checkout/custom': {
    body: 'required',
    run: async ({ body, headers }) => {
      const input = parse(CustomCheckoutBody, body);
      const session = await createCustomCheckout(input, idempotencyKeyOf(headers));
      return { ...ok(session), headers: noStore };
    },
  },
  'OPTIONS /api/payments/checkout/custom': { run: preflight(['POST'], checkoutHeaders) },
  'GET /api/payments/receipt': {
    run: async ({ query }) => {
      const { session_id, shareId } = parse(ReceiptQuery, query, 'query string');
      return { ...ok(await getReceipt(shareId, session_id)), headers: noStore };
    },
  },
  'OPTIONS /api/payments/receipt': { run: preflight(['GET'], ['Content-Type']) },
});
