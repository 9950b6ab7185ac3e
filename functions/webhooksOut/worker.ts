import type { DynamoDBStreamEvent, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import * as z from 'zod';
import { settleDue } from '#domain/customers/settle.ts';
import type { Keyring } from '#domain/ports.ts';
import { lazySchema } from '#domain/validation.ts';
import {
  attemptDelivery,
  type DeliveryQueue,
  dispatchStreamImage,
  type WebhookSender,
} from '#domain/webhooks-out/delivery.ts';
import { newEventId } from '#domain/webhooks-out/event-ids.ts';

const DeliveryMessage = lazySchema(() =>
  z.object({
    projectId: z.number().int().positive(),
    endpointId: z.number().int().positive(),
    eventId: z.string(),
  }),
);

/** A wake-up (an EventBridge Scheduler schedule's message): a change whose time has come. */
const DueMessage = lazySchema(() =>
  z.object({
    due: z.object({
      projectId: z.number().int().positive(),
      ownerId: z.string(),
      slug: z.string(),
      customerId: z.string(),
    }),
  }),
);

export interface WebhooksOutPorts {
  keyring: Keyring;
  sender: WebhookSender;
  queue: DeliveryQueue & { delay(receiptHandle: string, seconds: number): Promise<void> };
}

/**
 * The webhooksOut Lambda: the table's stream hands it new outbox items (filtered to them by
 * the event source), which it turns into deliveries on the queue; the queue hands it
 * deliveries, each attempted once. A failed attempt stays on the queue, invisible for the
 * retry schedule's next delay (ReportBatchItemFailures keeps it; ChangeMessageVisibility
 * sets when it comes back). A stream batch that fails is retried by the event source: a
 * dispatch is safe to run again. The queue also hands it the wake-ups of changes that take
 * effect later (a manual subscription's plan at its period end), which it writes then.
 */
export function createWebhooksOutWorker(ports: WebhooksOutPorts) {
  return async (event: DynamoDBStreamEvent | SQSEvent): Promise<SQSBatchResponse | undefined> => {
    const first = event.Records[0];
    if (!first) return undefined;
    if ('dynamodb' in first) {
      for (const record of (event as DynamoDBStreamEvent).Records) {
        const image = record.dynamodb?.NewImage;
        if (record.eventName !== 'INSERT' || !image) continue;
        await dispatchStreamImage(image, ports.queue);
      }
      return undefined;
    }
    const failures: { itemIdentifier: string }[] = [];
    await Promise.all(
      (event as SQSEvent).Records.map(async (message) => {
        const body: unknown = JSON.parse(message.body);
        const due = DueMessage().safeParse(body);
        const parsed = DeliveryMessage().safeParse(body);
        try {
          if (due.success) {
            const { dueAt } = await settleDue(due.data.due);
            if (dueAt !== undefined) await ports.queue.wakeAt(due.data.due, dueAt, newEventId());
            return;
          }
          // A message this code never wrote: nothing to deliver.
          if (!parsed.success) return;
          const outcome = await attemptDelivery(ports, parsed.data);
          if (outcome.done) return;
          // Not attempted (the endpoint's slots were held): a new message waits, so the wait
          // counts no receive towards the dead-letter queue.
          if (outcome.busy) return await ports.queue.enqueue([parsed.data], outcome.retryInSeconds);
          await ports.queue.delay(message.receiptHandle, outcome.retryInSeconds);
        } catch {
          // Back after the queue's visibility timeout; the dead-letter queue after too many.
        }
        failures.push({ itemIdentifier: message.messageId });
      }),
    );
    return { batchItemFailures: failures };
  };
}
