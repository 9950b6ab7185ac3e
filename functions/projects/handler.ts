import { lambdaHandler } from '#http/group-handler.ts';
import { kmsKeyringFor } from '#shared/secrets/kms-keyring.ts';
import { sqsSweepQueueFor } from '#shared/sweeps/sqs-queue.ts';
import { projects } from './actions.ts';

/**
 * Projects seal payment keys and hand deleted projects' sweeps to the sweep queue: a stage
 * without a keyring or a queue fails its cold start.
 */
export const handler = lambdaHandler(projects, { keyring: kmsKeyringFor, sweeps: sqsSweepQueueFor });
