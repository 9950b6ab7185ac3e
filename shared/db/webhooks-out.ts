// A project's webhook endpoints, and the sweep of its whole webhooks partition (endpoints,
// deliveries, events not dispatched yet, delivery slots). Deliveries and events: shared/db/webhook-deliveries.ts.

import { deleteEveryPage } from './batch.ts';
import type { NewChangeEntryItem } from './changes.ts';
import type { NewWebhookEndpointItem, WebhookEndpointItem } from './entities/webhooks-out.ts';
import { ifConditionFails } from './errors.ts';
import { db } from './service.ts';
import { projectIsLive, writeTransaction } from './transactions.ts';
import type { ProjectScope } from './types.ts';

export type { WebhookEndpointItem };

/** Every endpoint of the project (at most ten: one small Query), strongly consistent. */
export async function listEndpointItems(projectId: number): Promise<WebhookEndpointItem[]> {
  const { data } = await db().entities.webhookEndpoint.query.byProject({ projectId }).go({ consistent: true });
  return data.sort((a, b) => a.endpointId - b.endpointId);
}

/**
 * Puts the endpoint into its slot, with its change-log entry, while the project is there and
 * the slot free: 'slot_taken' when a concurrent create took it first (read again and pick
 * another), 'project_gone' when the project went.
 */
export async function insertEndpoint(
  scope: ProjectScope,
  item: NewWebhookEndpointItem,
  changes: NewChangeEntryItem[],
): Promise<'committed' | 'slot_taken' | 'project_gone'> {
  const outcome = await writeTransaction(
    (entities) => [projectIsLive(entities, scope), entities.webhookEndpoint.create(item).commit()],
    changes,
  );
  if (outcome.committed) return 'committed';
  return outcome.reasons[0]?.code === 'ConditionalCheckFailed' ? 'project_gone' : 'slot_taken';
}

/** Deletes the endpoint in its slot, if it is still this one; its deliveries expire by TTL or go with a re-create. */
export async function removeEndpoint(
  scope: ProjectScope,
  endpoint: WebhookEndpointItem,
  changes: NewChangeEntryItem[],
): Promise<'committed' | 'gone'> {
  const outcome = await writeTransaction(
    (entities) => [
      projectIsLive(entities, scope),
      entities.webhookEndpoint
        .delete({ projectId: endpoint.projectId, slot: endpoint.slot })
        .where((attributes, { eq }) => eq(attributes.endpointId, endpoint.endpointId))
        .commit(),
    ],
    changes,
  );
  return outcome.committed ? 'committed' : 'gone';
}

/** Replaces the endpoint's sealed secret, if the endpoint is still there. */
export async function replaceEndpointSecret(
  scope: ProjectScope,
  endpoint: WebhookEndpointItem,
  secretSealed: string,
  changes: NewChangeEntryItem[],
): Promise<'committed' | 'gone'> {
  const outcome = await writeTransaction(
    (entities) => [
      projectIsLive(entities, scope),
      entities.webhookEndpoint
        .patch({ projectId: endpoint.projectId, slot: endpoint.slot })
        .set({ secretSealed })
        .where((attributes, { eq }) => eq(attributes.endpointId, endpoint.endpointId))
        .commit(),
    ],
    changes,
  );
  return outcome.committed ? 'committed' : 'gone';
}

/** Marks the endpoint disabled (its receiver answered 410 Gone), if it is still there. */
export async function disableEndpoint(endpoint: WebhookEndpointItem, at: string): Promise<void> {
  // Deleted (or replaced) meanwhile: nothing is left to disable.
  await ifConditionFails(
    db()
      .entities.webhookEndpoint.patch({ projectId: endpoint.projectId, slot: endpoint.slot })
      .set({ disabledAt: at })
      .where((attributes, { eq }) => eq(attributes.endpointId, endpoint.endpointId))
      .go(),
    'gone',
  );
}

/**
 * Deletes a deleted project's webhooks partition, whatever its size: a Query per page of keys
 * and batch deletes. Run after the project's partition is empty, when no write of the project
 * can commit any more (each checks the project item in its transaction).
 */
export async function sweepWebhooksOut(projectId: number): Promise<void> {
  const { webhookEndpoint, webhookEvent, webhookDelivery, webhookLease } = db().entities;
  const go = { consistent: true } as const;
  await deleteEveryPage(webhookEndpoint, (cursor) =>
    webhookEndpoint.query.byProject({ projectId }).go({ ...go, cursor, attributes: ['projectId', 'slot'] }),
  );
  await deleteEveryPage(webhookEvent, (cursor) =>
    webhookEvent.query.byProject({ projectId }).go({ ...go, cursor, attributes: ['projectId', 'eventId'] }),
  );
  await deleteEveryPage(webhookDelivery, (cursor) =>
    webhookDelivery.query
      .byEndpoint({ projectId })
      .go({ ...go, cursor, attributes: ['projectId', 'endpointId', 'eventId'] }),
  );
  await deleteEveryPage(webhookLease, (cursor) =>
    webhookLease.query.byEndpoint({ projectId }).go({ ...go, cursor, attributes: ['projectId', 'endpointId', 'slot'] }),
  );
}
