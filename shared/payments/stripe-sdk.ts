import type Stripe from 'stripe';
import { atFirstUse } from '#shared/first-use.ts';

export type StripeSdk = typeof Stripe;

/**
 * Stripe's SDK, evaluated at its first use rather than at import: a cold start of the payments
 * or webhooks function that answers a preflight, a receipt from the cache or a refused request
 * never builds it (docs/decisions.md, "Bundles and cold starts").
 */
export const loadStripe = atFirstUse((): Promise<StripeSdk> => import('stripe').then((module) => module.default));
