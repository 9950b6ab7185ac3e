import type Stripe from 'stripe';
import { InvalidSignatureError } from '#domain/errors.ts';
import type { WebhookEvent, WebhookVerifier } from '#domain/ports.ts';
import { loadStripe } from './stripe-sdk.ts';

/** Stripe's own tolerance: a signature older (or newer) than this is refused as a replay. */
export const WEBHOOK_TOLERANCE_SECONDS = 300;

/**
 * Verifies with the stripe SDK's own verifier (HMAC-SHA256 of `timestamp.body`, any `v1`
 * signature of the header, 300 s tolerance); a failure is our 400 `invalid_signature`.
 */
async function verify(rawBody: string, signature: string | undefined, secret: string): Promise<WebhookEvent> {
  if (!signature) throw new InvalidSignatureError('The Stripe-Signature header is missing.');
  const sdk = await loadStripe();
  let event: Stripe.Event;
  try {
    event = await sdk.webhooks.constructEventAsync(rawBody, signature, secret, WEBHOOK_TOLERANCE_SECONDS);
  } catch (error) {
    if (error instanceof sdk.errors.StripeSignatureVerificationError) {
      const stale = /tolerance/i.test(error.message);
      throw new InvalidSignatureError(
        stale
          ? 'The Stripe-Signature timestamp is outside the 300 s tolerance.'
          : "The Stripe-Signature does not match this project's webhook signing secret.",
      );
    }
    // A payload that verifies but is not JSON (the SDK parses it after checking).
    throw new InvalidSignatureError('The signed payload is not a Stripe event.');
  }
  // Signed is not the same as well formed: `null`, an array or a number verify too.
  const fields = (event && typeof event === 'object' && !Array.isArray(event) ? event : {}) as Partial<Stripe.Event>;
  if (typeof fields.id !== 'string' || typeof fields.type !== 'string' || typeof fields.created !== 'number') {
    throw new InvalidSignatureError('The signed payload is not a Stripe event.');
  }
  const object = (fields as { data?: { object?: unknown } }).data?.object;
  return {
    id: fields.id,
    type: fields.type,
    created: fields.created,
    object: object && typeof object === 'object' ? (object as Record<string, unknown>) : {},
  };
}

export const stripeWebhookVerifier = (): WebhookVerifier => ({ verify });
