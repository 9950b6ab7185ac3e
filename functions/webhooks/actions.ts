import { limits } from '#contract/limits.ts';
import { receiveWebhook } from '#domain/webhooks/webhook.ts';
import { defineGroup, route } from '#http/action.ts';
import { payloadTooLarge } from '#http/errors.ts';
import { ok } from '#http/responses.ts';

/**
 * Stripe's events for one project. The route declares no body schema, so the JSON body
 * parser never touches it: the signature is checked against the bytes as received.
 */
export const webhooks = defineGroup('webhooks', [
  route('POST /api/payments/webhook/{shareId}', {
    run: async ({ path, rawBody, headers, ports }) => {
      if (Buffer.byteLength(rawBody) > limits.bodyBytesMax) throw payloadTooLarge(limits.bodyBytesMax);
      return ok(await receiveWebhook(ports, path.shareId, rawBody, headers['stripe-signature']));
    },
  }),
]);
