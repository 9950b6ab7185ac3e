import type Stripe from 'stripe';
import { PaymentProviderError } from '#domain/errors.ts';
import type { CheckoutSessionRequest, CheckoutSessionSummary, PaymentGateway } from '#domain/ports.ts';
import type { RuntimeConfig } from '#shared/config.ts';
import { client, providerError, type StripeOptions, withStripe } from './stripe-client.ts';
import { loadStripe } from './stripe-sdk.ts';
import { subscriptionCalls } from './stripe-subscriptions.ts';

/**
 * The payment gateway on Stripe: the only module that talks to Stripe. It takes a project's
 * own secret key per call (every project sells through its own account) and turns Stripe's
 * failures into domain errors here, at the edge that meets them, with any key scrubbed
 * from the message.
 */

async function createCheckoutSession(
  options: StripeOptions,
  secretKey: string,
  request: CheckoutSessionRequest,
): Promise<{ id: string; url: string }> {
  const params: Stripe.Checkout.SessionCreateParams = {
    mode: 'subscription',
    line_items: [
      {
        quantity: 1,
        price_data: {
          currency: request.currency.toLowerCase(),
          unit_amount: request.unitAmount,
          recurring: { interval: request.interval },
          product_data: { name: request.productName },
        },
      },
    ],
    subscription_data: {
      metadata: request.metadata,
      ...(request.trialDays ? { trial_period_days: request.trialDays } : {}),
    },
    metadata: request.metadata,
    success_url: request.successUrl,
    cancel_url: request.cancelUrl,
    ...(request.customerEmail ? { customer_email: request.customerEmail } : {}),
    ...(request.clientReferenceId ? { client_reference_id: request.clientReferenceId } : {}),
  };
  const sdk = await loadStripe();
  try {
    const session = await client(sdk, secretKey, options).checkout.sessions.create(
      params,
      request.idempotencyKey ? { idempotencyKey: request.idempotencyKey } : undefined,
    );
    if (!session.url) throw new PaymentProviderError('Stripe created a checkout session without a URL.');
    return { id: session.id, url: session.url };
  } catch (error) {
    throw providerError(sdk, error);
  }
}

/** The session with its subscription and line items, or undefined when this account has no such session. */
async function retrieveCheckoutSession(
  options: StripeOptions,
  secretKey: string,
  sessionId: string,
): Promise<CheckoutSessionSummary | undefined> {
  const session = await withStripe(options, secretKey, (stripe) =>
    stripe.checkout.sessions.retrieve(sessionId, { expand: ['subscription', 'line_items'] }),
  );
  if (!session) return undefined;
  const subscription = typeof session.subscription === 'object' ? session.subscription : null;
  const lineItem = session.line_items?.data[0];
  return {
    id: session.id,
    status: session.status,
    metadata: session.metadata ?? {},
    amountTotal: session.amount_total,
    currency: session.currency,
    customerEmail: session.customer_details?.email ?? session.customer_email ?? null,
    subscription: session.subscription
      ? {
          id: typeof session.subscription === 'string' ? session.subscription : session.subscription.id,
          interval:
            subscription?.items.data[0]?.price.recurring?.interval ?? lineItem?.price?.recurring?.interval ?? null,
        }
      : null,
    productName: lineItem?.description ?? null,
  };
}

export function stripeGateway(options: StripeOptions): PaymentGateway {
  return {
    ...subscriptionCalls(options),
    createCheckoutSession: (secretKey, request) => createCheckoutSession(options, secretKey, request),
    retrieveCheckoutSession: (secretKey, sessionId) => retrieveCheckoutSession(options, secretKey, sessionId),
  };
}

/** The gateway a configuration names: Stripe itself, or STRIPE_API_BASE. */
export const stripeGatewayFor = (config: Pick<RuntimeConfig, 'STRIPE_API_BASE' | 'STRIPE_TIMEOUT_MS'>) =>
  stripeGateway({ apiBase: config.STRIPE_API_BASE, timeoutMs: config.STRIPE_TIMEOUT_MS });
