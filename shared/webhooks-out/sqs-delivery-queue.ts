import type { SQSClient } from '@aws-sdk/client-sqs';
import type { DeliveryQueue, DeliveryRef } from '#domain/webhooks-out/delivery.ts';
import { ConfigError, type RuntimeConfig } from '#shared/config.ts';

/** SendMessageBatch takes at most 10 messages. */
const BATCH = 10;

/**
 * A stage's delivery queue (WEBHOOK_QUEUE_URL): each message names one delivery. A retry
 * waits as the message's visibility timeout (`delay`), so SQS, not a loop of ours, holds it
 * until its next attempt.
 */
export function sqsDeliveryQueueFor(config: Pick<RuntimeConfig, 'WEBHOOK_QUEUE_URL' | 'AWS_REGION'>) {
  const queueUrl = config.WEBHOOK_QUEUE_URL;
  if (!queueUrl)
    throw new ConfigError('Invalid configuration: webhook delivery needs WEBHOOK_QUEUE_URL (an SQS queue)');
  let ready: Promise<{ sdk: typeof import('@aws-sdk/client-sqs'); client: SQSClient }> | undefined;
  const sqs = () => {
    ready ??= import('@aws-sdk/client-sqs').then((sdk) => ({
      sdk,
      client: new sdk.SQSClient({ region: config.AWS_REGION }),
    }));
    return ready;
  };
  const queue: DeliveryQueue & { delay(receiptHandle: string, seconds: number): Promise<void> } = {
    async enqueue(refs: DeliveryRef[], delaySeconds = 0) {
      const { sdk, client } = await sqs();
      for (let i = 0; i < refs.length; i += BATCH) {
        const entries = refs.slice(i, i + BATCH).map((ref, n) => ({
          Id: String(n),
          MessageBody: JSON.stringify(ref),
          // SQS delays a message at most 15 minutes.
          DelaySeconds: Math.min(delaySeconds, 900),
        }));
        const sent = await client.send(new sdk.SendMessageBatchCommand({ QueueUrl: queueUrl, Entries: entries }));
        if (sent.Failed?.length) throw new Error(`SQS refused ${sent.Failed.length} delivery message(s)`);
      }
    },
    async delay(receiptHandle, seconds) {
      const { sdk, client } = await sqs();
      await client.send(
        new sdk.ChangeMessageVisibilityCommand({
          QueueUrl: queueUrl,
          ReceiptHandle: receiptHandle,
          VisibilityTimeout: seconds,
        }),
      );
    },
  };
  return queue;
}
