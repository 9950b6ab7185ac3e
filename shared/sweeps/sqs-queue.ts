import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { SweepQueue } from '#domain/ports.ts';
import { ConfigError, type RuntimeConfig } from '#shared/config.ts';

/** The message a sweep is handed over with; the sweeper reads it back with sweepMessage. */
export const sweepMessageBody = (projectId: number) => JSON.stringify({ projectId });

/** A stage's sweep queue, named in SWEEP_QUEUE_URL: a stage without one fails its cold start. */
export function sqsSweepQueueFor(config: Pick<RuntimeConfig, 'SWEEP_QUEUE_URL' | 'AWS_REGION'>): SweepQueue {
  const queueUrl = config.SWEEP_QUEUE_URL;
  if (!queueUrl) throw new ConfigError('Invalid configuration: project deletes need SWEEP_QUEUE_URL (an SQS queue)');
  // No endpoint here: the SDK reads AWS_ENDPOINT_URL_SQS itself.
  const client = new SQSClient({ region: config.AWS_REGION });
  return {
    async enqueue(projectId) {
      await client.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: sweepMessageBody(projectId) }));
    },
  };
}
