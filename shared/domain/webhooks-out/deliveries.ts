import * as z from 'zod';
import type { WebhookDeliveryStatus, WebhookEventType } from '#contract/enums.ts';
import type { ProjectKey } from '#db/types.ts';
import { getDelivery, putOutboxItem, readDeliveries, type WebhookDeliveryItem } from '#db/webhook-deliveries.ts';
import { ConflictError, NotFoundError } from '../errors.ts';
import { type PageQuery, pagedList } from '../pages.ts';
import { findEndpoint } from './endpoints.ts';
import { deliveryIdOf, eventIdOf, newEventId } from './event-ids.ts';

/** An endpoint's deliveries (lifecycle.md §4), newest first, paged by the one cursor scheme. */
const pages = pagedList(
  () => z.string().regex(/^evt_[0-9a-z]{25}$/),
  (item: WebhookDeliveryItem) => item.eventId,
);

const deliveryNotFound = (deliveryId: string) =>
  new NotFoundError(`Delivery "${deliveryId.slice(0, 40)}" not found for this webhook endpoint.`);

export const deliveryView = (item: WebhookDeliveryItem) => ({
  id: deliveryIdOf(item.eventId),
  eventId: item.eventId,
  type: item.type as WebhookEventType,
  status: item.status as WebhookDeliveryStatus,
  attempts: item.attempts,
  lastResponseStatus: item.lastResponseStatus ?? null,
  lastAttemptAt: item.lastAttemptAt ?? null,
});

export async function listDeliveries(key: ProjectKey, endpointId: number, query: PageQuery) {
  const start = pages.start(query);
  const { project } = await findEndpoint(key, endpointId);
  const now = Math.floor(Date.now() / 1000);
  const page = await pages.fill(
    start,
    (after, count) => readDeliveries(project.projectId, endpointId, after, count),
    // TTL deletes some time after expiry: a delivery past it is gone already.
    (item) => item.expiresAt > now,
  );
  return { deliveries: page.items.map(deliveryView), nextCursor: page.nextCursor };
}

/**
 * Sends the delivery again now, whatever its status: an outbox item names it, and the
 * dispatcher sets it pending and hands it to the delivery queue, signed with the endpoint's
 * current secret. A disabled endpoint (it answered 410 Gone) is sent nothing, resends
 * included, so a resend there is refused rather than accepted and silently dropped.
 */
export async function retryDelivery(key: ProjectKey, endpointId: number, deliveryId: string): Promise<void> {
  const { project, endpoint } = await findEndpoint(key, endpointId);
  const eventId = eventIdOf(deliveryId);
  const delivery = eventId && (await getDelivery(project.projectId, endpointId, eventId));
  if (!delivery) throw deliveryNotFound(deliveryId);
  if (endpoint.disabledAt) {
    throw new ConflictError(
      `Webhook endpoint ${endpointId} is disabled: it answered 410 Gone at ${endpoint.disabledAt}, and nothing more is sent to it. Create a new endpoint to receive events again.`,
    );
  }
  await putOutboxItem({
    projectId: project.projectId,
    eventId: newEventId(),
    type: delivery.type,
    body: '',
    resend: { endpointId, eventId: delivery.eventId },
  });
}
