import { recordView } from '#domain/experiments/counting.ts';
import { ViewBody } from '#domain/experiments/visitor.ts';
import { createCustomCheckout, createPlanCheckout } from '#domain/payments/checkout.ts';
import { getReceipt } from '#domain/payments/receipt.ts';
import {
  CheckoutView,
  CustomCheckoutBody,
  IdempotencyKey,
  PlanCheckoutBody,
  ReceiptQuery,
  ReceiptView,
} from '#domain/payments/schemas.ts';
import { parse } from '#domain/validation.ts';
import { defineGroup, routesIn } from '#http/action.ts';
import { preflight } from '#http/preflight.ts';
import { privately } from '#http/responses.ts';
import { paymentsRoutes } from './routes.ts';

const idempotencyKeyOf = (headers: Record<string, string | undefined>) =>
  parse(IdempotencyKey, headers['idempotency-key'], 'Idempotency-Key header');

const checkoutHeaders = ['Content-Type', 'Idempotency-Key'];
const checkoutErrors = ['payments_not_configured', 'payment_provider_error', 'rate_limited'] as const;
const checkoutDescription =
  "Prices are computed on the server from the project; redirect URLs are the project's. An optional `Idempotency-Key` header (printable ASCII, at most 200 characters) is passed to Stripe, so a retry makes no second session.";

/** The widget's purchase endpoints: public, through each project's own Stripe account. */
const route = routesIn(paymentsRoutes);

export const payments = defineGroup(paymentsRoutes, [
  route('GET /api/payments/receipt', {
    query: ReceiptQuery,
    doc: {
      operationId: 'getReceipt',
      summary: 'The receipt of a completed checkout session',
      responses: { 200: ReceiptView },
      errors: ['not_found', 'payments_not_configured', 'payment_provider_error', 'rate_limited'],
    },
    run: async ({ query, ports, clientAddress }) =>
      privately(await getReceipt(ports, query.shareId, query.session_id, { clientAddress })),
  }),
  route('POST /api/payments/checkout', {
    body: PlanCheckoutBody,
    doc: {
      operationId: 'createPlanCheckout',
      summary: "A Stripe checkout session for one of a pricing page's plans",
      description: `${checkoutDescription} While an experiment runs, the price is that of the variant the server computes from \`visitor\`; a \`variant\` or \`experimentId\` in the body is ignored.`,
      responses: { 200: CheckoutView },
      errors: ['not_found', ...checkoutErrors],
    },
    run: async ({ body, headers, ports, clientAddress }) =>
      privately(await createPlanCheckout(ports, body, { clientAddress, idempotencyKey: idempotencyKeyOf(headers) })),
  }),
  route('POST /api/payments/checkout/custom', {
    body: CustomCheckoutBody,
    doc: {
      operationId: 'createCustomCheckout',
      summary: "A Stripe checkout session for a custom plan built from a pricing page's features",
      description: checkoutDescription,
      responses: { 200: CheckoutView },
      errors: ['not_found', ...checkoutErrors],
    },
    run: async ({ body, headers, ports, clientAddress }) =>
      privately(await createCustomCheckout(ports, body, { clientAddress, idempotencyKey: idempotencyKeyOf(headers) })),
  }),
  route('POST /api/share/{shareId}/views', {
    body: ViewBody,
    doc: {
      operationId: 'recordView',
      summary: "A pricing page's view by a visitor, counted once per visitor in the running experiment",
      description:
        "204 whether or not it counted: without a running experiment nothing is counted, a repeated view of the same visitor counts once, and past the views' rate limits (per client address and per project) nothing is counted. An unknown share id is 404.",
      responses: { 204: { description: 'Recorded (or nothing to record).' } },
      errors: ['not_found'],
    },
    run: async ({ path, body, ports, clientAddress }) => {
      await recordView(ports.clock, path.shareId, body.visitor, { clientAddress });
      return { status: 204, headers: { 'cache-control': 'no-store' } };
    },
  }),
  // CORS preflights: the widget calls these from its customers' origins.
  route('OPTIONS /api/share/{shareId}/views', preflight('viewPreflight', ['POST'], ['Content-Type'])),
  route('OPTIONS /api/payments/receipt', preflight('receiptPreflight', ['GET'], ['Content-Type'])),
  route('OPTIONS /api/payments/checkout', preflight('checkoutPreflight', ['POST'], checkoutHeaders)),
  route('OPTIONS /api/payments/checkout/custom', preflight('customCheckoutPreflight', ['POST'], checkoutHeaders)),
]);
