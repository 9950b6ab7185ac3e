import type { MigrationJob, MigrationQueue, SweepQueue } from '#domain/ports.ts';
import { ConfigError, type RuntimeConfig } from '#shared/config.ts';
import { atFirstUse } from '#shared/first-use.ts';

/** The message a sweep is handed over with; the sweeper reads it back with sweepMessage. */
export const sweepMessageBody = (projectId: number) => JSON.stringify({ projectId });

/** A plan migration handed to the sweeper (shared/domain/versions/migrate.ts), on the same queue. */
export const migrationMessageBody = (job: MigrationJob) => JSON.stringify({ migration: job });

/** A stage's sweep queue, named in SWEEP_QUEUE_URL: a stage without one fails its cold start. */
export function sqsSweepQueueFor(config: Pick<RuntimeConfig, 'SWEEP_QUEUE_URL' | 'AWS_REGION'>): SweepQueue {
  const send = sqsSender(config);
  return { enqueue: (projectId) => send(sweepMessageBody(projectId)) };
}

/** Large plan migrations go to the sweep queue too, for the sweeper to run. */
export function sqsMigrationQueueFor(config: Pick<RuntimeConfig, 'SWEEP_QUEUE_URL' | 'AWS_REGION'>): MigrationQueue {
  const send = sqsSender(config);
  return { enqueue: (job) => send(migrationMessageBody(job)) };
}

function sqsSender(config: Pick<RuntimeConfig, 'SWEEP_QUEUE_URL' | 'AWS_REGION'>) {
  const queueUrl = config.SWEEP_QUEUE_URL;
  if (!queueUrl)
    throw new ConfigError(
      'Invalid configuration: project deletes and plan migrations need SWEEP_QUEUE_URL (an SQS queue)',
    );
  // The SQS client's module is loaded at the first hand-over, not at import: no other request
  // of the function uses it (docs/decisions.md, "Bundles and cold starts"). No endpoint here:
  // the SDK reads AWS_ENDPOINT_URL_SQS itself.
  const ready = atFirstUse(() =>
    import('@aws-sdk/client-sqs').then((sdk) => ({ sdk, client: new sdk.SQSClient({ region: config.AWS_REGION }) })),
  );
  return async (body: string): Promise<void> => {
    const { sdk, client } = await ready();
    await client.send(new sdk.SendMessageCommand({ QueueUrl: queueUrl, MessageBody: body }));
  };
}
