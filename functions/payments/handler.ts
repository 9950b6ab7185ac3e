import { systemClock } from '#domain/ports.ts';
import { lambdaHandler } from '#http/group-handler.ts';
import { stripeGatewayFor } from '#shared/payments/stripe.ts';
import { keyringFor } from '#shared/secrets/keyring.ts';
import { payments } from './actions.ts';

/** Checkout opens payment keys: a stage without a keyring fails its cold start. */
export const handler = lambdaHandler(payments, {
  keyring: keyringFor,
  payments: stripeGatewayFor,
  clock: () => systemClock,
});
