import type Stripe from 'stripe';
import { ConflictError, PaymentProviderError } from '#domain/errors.ts';
import { loadStripe, type StripeSdk } from './stripe-sdk.ts';

/** How the gateway reaches Stripe, and how Stripe's failures become domain errors (no key in a message). */

export interface StripeOptions {
  /** Another Stripe-compatible server (tests, local runs); undefined means api.stripe.com. */
  apiBase?: string | undefined;
  /** Per attempt. */
  timeoutMs: number;
}

/** One retry: a POST carries an idempotency key (ours or the SDK's), so a retry cannot charge twice. */
const MAX_NETWORK_RETRIES = 1;

/** One per call, with the project's key: cheap, as the SDK shares one keep-alive agent per process. */
export function client(sdk: StripeSdk, secretKey: string, options: StripeOptions): Stripe {
  const base = options.apiBase ? new URL(options.apiBase) : undefined;
  return new sdk(secretKey, {
    maxNetworkRetries: MAX_NETWORK_RETRIES,
    timeout: options.timeoutMs,
    telemetry: false,
    appInfo: { name: 'pricing-plan-service' },
    ...(base
      ? {
          host: base.hostname,
          port: base.port || (base.protocol === 'https:' ? 443 : 80),
          protocol: base.protocol === 'https:' ? 'https' : 'http',
        }
      : {}),
  });
}

/** Stripe already masks keys in its messages; this also removes anything key-shaped it might echo. */
const KEY_SHAPED = /\b(?:sk|rk|pk)_(?:test|live)_[A-Za-z0-9*]+/g;
export const scrubSecrets = (message: string) => message.replace(KEY_SHAPED, '[redacted key]');

export function providerError(sdk: StripeSdk, error: unknown): Error {
  if (!(error instanceof sdk.errors.StripeError)) return error instanceof Error ? error : new Error(String(error));
  if (error instanceof sdk.errors.StripeIdempotencyError) {
    return new ConflictError(
      'This Idempotency-Key was already used for a different checkout; send a new key for a new request.',
    );
  }
  if (error instanceof sdk.errors.StripeConnectionError) {
    return new PaymentProviderError('Stripe could not be reached or did not answer in time; try again.');
  }
  const status = error.statusCode ? ` (HTTP ${error.statusCode})` : '';
  const prefix =
    error instanceof sdk.errors.StripeAuthenticationError || error instanceof sdk.errors.StripePermissionError
      ? "Stripe refused the project's payment key"
      : 'Stripe refused the request';
  return new PaymentProviderError(`${prefix}${status}: ${scrubSecrets(error.message)}`);
}

/** Runs `call` with a client of the key; Stripe's "no such …" is undefined, any other failure a domain error. */
export async function withStripe<T>(
  options: StripeOptions,
  secretKey: string,
  call: (stripe: Stripe) => Promise<T>,
): Promise<T | undefined> {
  const sdk = await loadStripe();
  try {
    return await call(client(sdk, secretKey, options));
  } catch (error) {
    if (error instanceof sdk.errors.StripeInvalidRequestError && error.code === 'resource_missing') return undefined;
    throw providerError(sdk, error);
  }
}
