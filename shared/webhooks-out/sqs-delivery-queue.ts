import type { DeliveryQueue, DeliveryRef, DueRef } from '#domain/webhooks-out/delivery.ts';
import { ConfigError, type RuntimeConfig } from '#shared/config.ts';
import { atFirstUse } from '#shared/first-use.ts';

/** SendMessageBatch takes at most 10 messages. */
const BATCH = 10;
/** SQS delays a message at most 15 minutes: a wake-up sooner than that is a delayed message. */
const MAX_DELAY_S = 900;

type WakeConfig = Pick<
  RuntimeConfig,
  | 'WEBHOOK_QUEUE_ARN'
  | 'WEBHOOK_DEAD_LETTER_ARN'
  | 'WEBHOOK_SCHEDULE_GROUP'
  | 'WEBHOOK_SCHEDULER_ROLE_ARN'
  | 'AWS_REGION'
>;

/** `at(…)` of EventBridge Scheduler, in UTC: whole seconds, rounded up so it is never early. */
export const scheduleAt = (atMs: number) => `at(${new Date(Math.ceil(atMs / 1000) * 1000).toISOString().slice(0, 19)})`;

/**
 * Wake-ups later than SQS can delay: one EventBridge Scheduler one-time schedule each, named
 * after the wake-up (a second create of the same name is refused, and ignored), which puts the
 * message on the delivery queue at its time and then deletes itself.
 */
function schedulerFor(config: WakeConfig) {
  const ready = atFirstUse(() =>
    import('@aws-sdk/client-scheduler').then((sdk) => ({
      sdk,
      client: new sdk.SchedulerClient({ region: config.AWS_REGION }),
    })),
  );
  return async (message: string, atMs: number, id: string) => {
    const { WEBHOOK_QUEUE_ARN: queueArn, WEBHOOK_SCHEDULE_GROUP: group, WEBHOOK_SCHEDULER_ROLE_ARN: roleArn } = config;
    if (!queueArn || !group || !roleArn) {
      throw new ConfigError(
        'Invalid configuration: a wake-up needs WEBHOOK_QUEUE_ARN, WEBHOOK_SCHEDULE_GROUP and WEBHOOK_SCHEDULER_ROLE_ARN',
      );
    }
    const { sdk, client } = await ready();
    try {
      await client.send(
        new sdk.CreateScheduleCommand({
          Name: `due-${id}`,
          GroupName: group,
          ScheduleExpression: scheduleAt(atMs),
          ScheduleExpressionTimezone: 'UTC',
          FlexibleTimeWindow: { Mode: 'OFF' },
          ActionAfterCompletion: 'DELETE',
          Target: {
            Arn: queueArn,
            RoleArn: roleArn,
            Input: message,
            // What the scheduler could not put on the queue after its retries: alarmed.
            ...(config.WEBHOOK_DEAD_LETTER_ARN ? { DeadLetterConfig: { Arn: config.WEBHOOK_DEAD_LETTER_ARN } } : {}),
          },
        }),
      );
    } catch (error) {
      // Set already (a stream record handled again).
      if (!(error instanceof sdk.ConflictException)) throw error;
    }
  };
}

/**
 * A stage's delivery queue (WEBHOOK_QUEUE_URL): each message names one delivery. A retry
 * waits as the message's visibility timeout (`delay`), so SQS, not a loop of ours, holds it
 * until its next attempt. A wake-up (a change that takes effect later) is a message on the same
 * queue: delayed, when it is due within 15 minutes, else put there by a one-time schedule.
 */
export function sqsDeliveryQueueFor(config: Pick<RuntimeConfig, 'WEBHOOK_QUEUE_URL'> & WakeConfig) {
  const queueUrl = config.WEBHOOK_QUEUE_URL;
  if (!queueUrl)
    throw new ConfigError('Invalid configuration: webhook delivery needs WEBHOOK_QUEUE_URL (an SQS queue)');
  // Loaded at first use, and again after a failed load, as every SDK client here is.
  const sqs = atFirstUse(() =>
    import('@aws-sdk/client-sqs').then((sdk) => ({ sdk, client: new sdk.SQSClient({ region: config.AWS_REGION }) })),
  );
  const schedule = schedulerFor(config);
  return {
    async enqueue(refs: DeliveryRef[], delaySeconds = 0) {
      const { sdk, client } = await sqs();
      for (let i = 0; i < refs.length; i += BATCH) {
        const entries = refs.slice(i, i + BATCH).map((ref, n) => ({
          Id: String(n),
          MessageBody: JSON.stringify(ref),
          DelaySeconds: Math.min(delaySeconds, MAX_DELAY_S),
        }));
        const sent = await client.send(new sdk.SendMessageBatchCommand({ QueueUrl: queueUrl, Entries: entries }));
        if (sent.Failed?.length) throw new Error(`SQS refused ${sent.Failed.length} delivery message(s)`);
      }
    },
    async wakeAt(ref: DueRef, atMs: number, id: string) {
      const message = JSON.stringify({ due: ref });
      const seconds = Math.max(0, Math.ceil((atMs - Date.now()) / 1000));
      if (seconds > MAX_DELAY_S) return schedule(message, atMs, id);
      const { sdk, client } = await sqs();
      await client.send(
        new sdk.SendMessageCommand({ QueueUrl: queueUrl, MessageBody: message, DelaySeconds: seconds }),
      );
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
  } satisfies DeliveryQueue & { delay(receiptHandle: string, seconds: number): Promise<void> };
}
