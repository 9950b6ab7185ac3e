import { lambdaHandler } from '#http/group-handler.ts';
import { stripeGatewayFor } from '#shared/payments/stripe.ts';
import { kmsKeyringFor } from '#shared/secrets/kms-keyring.ts';
import { sqsMigrationQueueFor } from '#shared/sweeps/sqs-queue.ts';
import { plans } from './actions.ts';

/**
 * Plan migrations open the project's payment key to reprice Stripe subscriptions, and hand
 * large ones to the sweep queue: a stage without a keyring or a queue fails its cold start.
 */
export const handler = lambdaHandler(plans, {
  keyring: kmsKeyringFor,
  payments: stripeGatewayFor,
  migrations: sqsMigrationQueueFor,
});
