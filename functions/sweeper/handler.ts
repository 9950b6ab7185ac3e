import { compose } from '#shared/composition.ts';
import { runtimeConfig } from '#shared/config.ts';
import { stripeGatewayFor } from '#shared/payments/stripe.ts';
import { kmsKeyringFor } from '#shared/secrets/kms-keyring.ts';
import { sqsMigrationQueueFor, sqsSweepQueueFor } from '#shared/sweeps/sqs-queue.ts';
import { createSweeper } from './worker.ts';

/** The sweeper's Lambda entry: no route reaches it; the sweep queue and a schedule invoke it. */
export const handler = createSweeper(
  compose(runtimeConfig(), {
    sweeps: sqsSweepQueueFor,
    migrations: sqsMigrationQueueFor,
    keyring: kmsKeyringFor,
    payments: stripeGatewayFor,
  }).ports,
);
