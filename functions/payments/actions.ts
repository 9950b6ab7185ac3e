import { createCustomCheckout, createPlanCheckout } from '#domain/payments/checkout.ts';
import { getReceipt } from '#domain/payments/receipt.ts';
import { CustomCheckoutBody, IdempotencyKey, PlanCheckoutBody, ReceiptQuery } from '#domain/payments/schemas.ts';
import { parse } from '#domain/validation.ts';
import { defineGroup, route } from '#http/action.ts';
import { preflight } from '#http/preflight.ts';
import type { HttpResult } from '#http/responses.ts';

const idempotencyKeyOf = (headers: Record<string, string | undefined>) =>
  parse(IdempotencyKey, headers['idempotency-key'], 'Idempotency-Key header');

/** Checkout links and receipts hold a customer's e-mail: no cache may keep them. */
const privately = (body: unknown): HttpResult => ({ status: 200, body, headers: { 'cache-control': 'no-store' } });
const checkoutHeaders = ['Content-Type', 'Idempotency-Key'];

/** The widget's purchase endpoints: public, through each project's own Stripe account. */
export const payments = defineGroup('payments', [
  route('GET /api/payments/receipt', {
    query: ReceiptQuery,
    run: async ({ query, ports }) => privately(await getReceipt(ports, query.shareId, query.session_id)),
  }),
  route('POST /api/payments/checkout', {
    body: PlanCheckoutBody,
    run: async ({ body, headers, ports }) =>
      privately(await createPlanCheckout(ports, body, idempotencyKeyOf(headers))),
  }),
  route('POST /api/payments/checkout/custom', {
    body: CustomCheckoutBody,
    run: async ({ body, headers, ports }) =>
      privately(await createCustomCheckout(ports, body, idempotencyKeyOf(headers))),
  }),
  // CORS preflights: the widget calls these from its customers' origins.
  route('OPTIONS /api/payments/receipt', { run: preflight(['GET'], ['Content-Type']) }),
  route('OPTIONS /api/payments/checkout', { run: preflight(['POST'], checkoutHeaders) }),
  route('OPTIONS /api/payments/checkout/custom', { run: preflight(['POST'], checkoutHeaders) }),
]);
