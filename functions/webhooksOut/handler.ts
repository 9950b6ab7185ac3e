import { compose } from '#shared/composition.ts';
import { runtimeConfig } from '#shared/config.ts';
import { kmsKeyringFor } from '#shared/secrets/kms-keyring.ts';
import { httpWebhookSender } from '#shared/webhooks-out/http-sender.ts';
import { sqsDeliveryQueueFor } from '#shared/webhooks-out/sqs-delivery-queue.ts';
import { createWebhooksOutWorker } from './worker.ts';

/** The webhooksOut Lambda entry: the table's stream and the delivery queue invoke it. */
const app = compose(runtimeConfig(), { keyring: kmsKeyringFor });
export const handler = createWebhooksOutWorker({
  keyring: app.ports.keyring,
  sender: httpWebhookSender(app.config.WEBHOOK_URLS),
  queue: sqsDeliveryQueueFor(app.config),
});
