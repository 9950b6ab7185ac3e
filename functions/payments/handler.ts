import { systemClock } from '#domain/ports.ts';
import { lambdaHandler } from '#http/group-handler.ts';
import { stripeGatewayFor } from '#shared/payments/stripe.ts';
import { kmsKeyringFor } from '#shared/secrets/kms-keyring.ts';
import { payments } from './actions.ts';

/** Checkout opens payment keys: a stage without a keyring fails its cold start. */
export const handler = lambdaHandler(payments, {
  keyring: kmsKeyringFor,
  payments: stripeGatewayFor,
  clock: () => systemClock,
});
