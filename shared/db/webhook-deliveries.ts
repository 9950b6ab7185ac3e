import { type AttributeValue, ScanCommand, type ScanCommandOutput } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
// The outbox's events and the deliveries they become (shared/db/entities/webhooks-out.ts).

import type { NewWebhookEventItem, WebhookDeliveryItem, WebhookEventItem } from './entities/webhooks-out.ts';
import { ifConditionFails } from './errors.ts';
import { db, rawTable } from './service.ts';
import type { TransactionEntities } from './transactions.ts';

export type { NewWebhookEventItem, WebhookDeliveryItem, WebhookEventItem };

/** The outbox put of an event, one action of the transaction of the change it reports. */
export const putEvent = ({ webhookEvent }: TransactionEntities, event: NewWebhookEventItem) =>
  webhookEvent.create(event).commit();

/**
 * Up to `count` deliveries of the endpoint, newest first, older than the one of event `after`
 * (from the newest when undefined): one Query. `more` says whether older ones follow.
 */
export async function readDeliveries(
  projectId: number,
  endpointId: number,
  after: string | undefined,
  count: number,
): Promise<{ items: WebhookDeliveryItem[]; more: boolean }> {
  const query = db().entities.webhookDelivery.query.byEndpoint({ projectId, endpointId });
  const { data, cursor } = await (after === undefined ? query : query.lt({ eventId: after })).go({
    order: 'desc',
    limit: count,
    consistent: true,
  });
  return { items: data, more: cursor !== null };
}

export async function getDelivery(
  projectId: number,
  endpointId: number,
  eventId: string,
): Promise<WebhookDeliveryItem | undefined> {
  const { data } = await db().entities.webhookDelivery.get({ projectId, endpointId, eventId }).go({ consistent: true });
  return data ?? undefined;
}

/** Puts an outbox item on its own (a manual resend); the stream hands it on as any other. */
export async function putOutboxItem(event: NewWebhookEventItem): Promise<void> {
  await db().entities.webhookEvent.create(event).go();
}

/** Takes an event out of the outbox once its deliveries are written and handed on. */
export async function removeOutboxItem(projectId: number, eventId: string): Promise<void> {
  await db().entities.webhookEvent.delete({ projectId, eventId }).go();
}

/**
 * Writes the event's delivery to one endpoint unless it exists (a redelivered stream record
 * writes nothing twice): the delivery as stored either way.
 */
export async function ensureDelivery(item: WebhookDeliveryItem): Promise<WebhookDeliveryItem> {
  const created = await ifConditionFails(db().entities.webhookDelivery.create(item).go(), 'exists');
  if (created !== 'exists') return item;
  return (await getDelivery(item.projectId, item.endpointId, item.eventId)) ?? item;
}

/** Sets a delivery back to pending for a manual resend (its attempts go on counting). */
export async function reopenDelivery(delivery: Pick<WebhookDeliveryItem, 'projectId' | 'endpointId' | 'eventId'>) {
  const reopened = await ifConditionFails(
    db().entities.webhookDelivery.patch(delivery).set({ status: 'pending' }).go(),
    'gone',
  );
  return reopened === 'gone' ? reopened : ('reopened' as const);
}

/** Records one attempt's outcome. */
export async function recordAttempt(
  delivery: Pick<WebhookDeliveryItem, 'projectId' | 'endpointId' | 'eventId'>,
  attempt: Pick<WebhookDeliveryItem, 'status' | 'attempts' | 'lastAttemptAt'> & { lastResponseStatus: number | null },
): Promise<void> {
  const { lastResponseStatus, ...rest } = attempt;
  const update = db().entities.webhookDelivery.patch(delivery).set(rest);
  // The delivery went with its project or expired: nothing to record.
  await ifConditionFails(
    (lastResponseStatus === null ? update.remove(['lastResponseStatus']) : update.set({ lastResponseStatus })).go(),
    'gone',
  );
}

type AnyItem = Record<string, unknown>;
const isMarshalled = (item: AnyItem) => typeof item.__edb_e__ === 'object';
/** An outbox item from a stored image, marshalled (a stream record's) or native; others are undefined. */
export const asOutboxItem = (raw: AnyItem): WebhookEventItem | undefined => {
  const item = isMarshalled(raw) ? unmarshall(raw as Record<string, AttributeValue>) : raw;
  if (item.__edb_e__ !== 'webhookEvent') return undefined;
  const { projectId, eventId, type, body, resend, due } = item as WebhookEventItem;
  return { projectId, eventId, type, body, ...(resend ? { resend } : {}), ...(due ? { due } : {}) };
};

/**
 * Local runs only: calls `onEvent` with each outbox item this process's client has just
 * written (a committed transaction or put), as a table's stream hands them to the
 * dispatcher in a stage. Returns the function that stops watching.
 */
export function watchOutboxWrites(onEvent: (item: WebhookEventItem) => void): () => void {
  const { lowLevel } = rawTable();
  const name = `outboxWatch${Math.random()}`;
  lowLevel.middlewareStack.add(
    (next) => async (args) => {
      const result = await next(args);
      const input = args.input as {
        Item?: AnyItem;
        TransactItems?: { Put?: { Item?: AnyItem } }[];
      };
      const items = [input.Item, ...(input.TransactItems ?? []).map((action) => action.Put?.Item)];
      for (const item of items) {
        const event = item && asOutboxItem(item);
        if (event) onEvent(event);
      }
      return result;
    },
    { step: 'build', name },
  );
  return () => {
    lowLevel.middlewareStack.remove(name);
  };
}

/** A change that takes effect later, and the customer and project it is of. */
export interface PendingChange {
  projectId: number;
  ownerId: string;
  slug: string;
  customerId: string;
  /** ISO instant it takes effect. */
  at: string;
}

/**
 * Local runs only, at start: what a killed process left undone, with one Scan of the table
 * (a local table is small): the outbox items, the deliveries still pending, and the manual
 * subscriptions with a change or a cancel waiting for their period end (with their projects'
 * keys). An aborted `signal` ends it after the current page, with what it found so far.
 */
export async function scanUnfinishedWebhooks(signal?: AbortSignal): Promise<{
  events: WebhookEventItem[];
  deliveries: WebhookDeliveryItem[];
  changes: PendingChange[];
}> {
  const { lowLevel, table } = rawTable();
  const events: WebhookEventItem[] = [];
  const deliveries: WebhookDeliveryItem[] = [];
  const projects = new Map<number, { ownerId: string; slug: string }>();
  const waiting: { projectId: number; customerId: string; at: string }[] = [];
  let start: Record<string, AttributeValue> | undefined;
  do {
    const page: ScanCommandOutput = await lowLevel.send(
      new ScanCommand({
        TableName: table,
        ConsistentRead: true,
        FilterExpression:
          '#e = :event OR (#e = :delivery AND #s = :pending) OR #e = :project OR ' +
          '(#e = :customer AND #sub.#src = :manual AND attribute_type(#sub.#end, :string) AND ' +
          '(attribute_type(#sub.#pv, :number) OR (#sub.#cancel = :true AND NOT #sub.#s IN (:canceled, :expired))))',
        ExpressionAttributeNames: {
          '#e': '__edb_e__',
          '#s': 'status',
          '#sub': 'subscription',
          '#pv': 'pendingVersion',
          '#src': 'source',
          '#end': 'currentPeriodEnd',
          '#cancel': 'cancelAtPeriodEnd',
        },
        ExpressionAttributeValues: {
          ':event': { S: 'webhookEvent' },
          ':delivery': { S: 'webhookDelivery' },
          ':pending': { S: 'pending' },
          ':project': { S: 'project' },
          ':customer': { S: 'customer' },
          ':manual': { S: 'manual' },
          ':number': { S: 'N' },
          ':string': { S: 'S' },
          ':true': { BOOL: true },
          ':canceled': { S: 'canceled' },
          ':expired': { S: 'incomplete_expired' },
        },
        ExclusiveStartKey: start,
      }),
    );
    for (const raw of page.Items ?? []) {
      const item = unmarshall(raw);
      if (item.__edb_e__ === 'webhookEvent') events.push(asOutboxItem(item) as WebhookEventItem);
      else if (item.__edb_e__ === 'project') projects.set(item.projectId, { ownerId: item.ownerId, slug: item.slug });
      else if (item.__edb_e__ === 'customer') {
        waiting.push({
          projectId: item.projectId,
          customerId: item.customerId,
          at: item.subscription.currentPeriodEnd,
        });
      } else deliveries.push(item as WebhookDeliveryItem);
    }
    start = page.LastEvaluatedKey;
  } while (start && !signal?.aborted);
  const changes = waiting.flatMap((change) => {
    const project = projects.get(change.projectId);
    return project ? [{ ...change, ...project }] : [];
  });
  return { events, deliveries, changes };
}
