import * as z from 'zod';
import { limits } from '#contract/limits.ts';
import { receiveWebhook } from '#domain/webhooks/webhook.ts';
import { defineGroup, routesIn } from '#http/action.ts';
import { payloadTooLarge } from '#http/errors.ts';
import { ok } from '#http/responses.ts';
import { webhooksRoutes } from './routes.ts';

/**
 * Stripe's events for one project. The route declares no body schema, so the JSON body
 * parser never touches it: the signature is checked against the bytes as received.
 */
const route = routesIn(webhooksRoutes);

export const webhooks = defineGroup(webhooksRoutes, [
  route('POST /api/payments/webhook/{shareId}', {
    doc: {
      operationId: 'receiveStripeWebhook',
      summary: "Stripe's signed events for the project (checkout completed, subscription created, updated, deleted)",
      description:
        "Verified against the project's paymentWebhookSecret with the Stripe-Signature header; applied once per event id.",
      responses: { 200: () => z.strictObject({ received: z.literal(true), outcome: z.string() }) },
      errors: ['invalid_signature', 'not_found', 'payments_not_configured', 'payload_too_large'],
    },
    run: async ({ path, rawBody, headers, ports }) => {
      if (Buffer.byteLength(rawBody) > limits.bodyBytesMax) throw payloadTooLarge(limits.bodyBytesMax);
      return ok(await receiveWebhook(ports, path.shareId, rawBody, headers['stripe-signature']));
    },
  }),
]);
