import { systemClock } from '#domain/ports.ts';
import { lambdaHandler } from '#http/group-handler.ts';
import { stripeGatewayFor } from '#shared/payments/stripe.ts';
import { kmsKeyringFor } from '#shared/secrets/kms-keyring.ts';
import { tokenKeysFor } from '#shared/secrets/token-keys.ts';
import { customers } from './actions.ts';

/** Plan changes open payment keys and sign customer tokens: a stage without either fails its cold start. */
export const handler = lambdaHandler(customers, {
  keyring: kmsKeyringFor,
  payments: stripeGatewayFor,
  clock: () => systemClock,
  tokenKeys: tokenKeysFor,
});
