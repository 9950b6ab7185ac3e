import type Stripe from 'stripe';

export type StripeSdk = typeof Stripe;

let sdk: Promise<StripeSdk> | undefined;

/**
 * Stripe's SDK, evaluated at its first use rather than at import: a cold start of the payments
 * or webhooks function that answers a preflight, a receipt from the cache or a refused request
 * never builds it (docs/decisions.md, "Bundles and cold starts"). Bundled, it stays in the
 * function's one file; only its evaluation waits.
 */
export function loadStripe(): Promise<StripeSdk> {
  sdk ??= import('stripe').then(
    (module) => module.default,
    (error: unknown) => {
      sdk = undefined;
      throw error;
    },
  );
  return sdk;
}
