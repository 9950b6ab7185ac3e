import { createConversions } from 'electrodb';
import { deleteEveryPage } from './batch.ts';
import { db } from './service.ts';
import { writeTransaction } from './transactions.ts';
import type { CustomerItem, ProjectKey } from './types.ts';
import { type NewWebhookEventItem, putEvent } from './webhook-deliveries.ts';

/** Keys and cursors from composite attributes, without I/O (built at the first listing). */
const customerConversions = () => createConversions(db().entities.customer);
let conversions: ReturnType<typeof customerConversions> | undefined;

/** A project's customer by id (one GetItem), or undefined. */
export async function getCustomerItem(
  projectId: number,
  customerId: string,
  { consistent = false } = {},
): Promise<CustomerItem | undefined> {
  const { data } = await db().entities.customer.get({ projectId, customerId }).go({ consistent });
  return data ?? undefined;
}

/**
 * Up to `count` of a project's customers in byte order of their ids, after the customer
 * `after` (from the first when undefined): one Query, which starts at that customer's key
 * and so reads none of the usage items beside the customers. `more` says whether others follow.
 */
export async function listCustomerItems(
  projectId: number,
  after: string | undefined,
  count: number,
): Promise<{ items: CustomerItem[]; more: boolean }> {
  conversions ??= customerConversions();
  const cursor = after === undefined ? null : conversions.fromComposite.toCursor({ projectId, customerId: after });
  const { data, cursor: next } = await db()
    .entities.customer.query.byProject({ projectId })
    .go({ limit: count, cursor });
  return { items: data, more: next !== null };
}

export type SaveCustomerOutcome = 'saved' | 'stale' | 'project_gone';

/**
 * Writes the whole customer item if it is still at `expectedVersion` (undefined: it must not
 * exist yet), in one transaction with a check that the project exists and is not being
 * deleted: once a delete has started no customer can be written, so the sweep's Query of
 * the customer partition sees every customer there will ever be.
 */
export async function saveCustomerItem(
  project: ProjectKey,
  item: Omit<CustomerItem, 'version'>,
  expectedVersion: number | undefined,
  events: NewWebhookEventItem[] = [],
): Promise<SaveCustomerOutcome> {
  const outcome = await writeTransaction((entities) => [
    entities.project
      .check(project)
      .where(({ projectId }, { exists }) => exists(projectId))
      .commit(),
    entities.customer
      .put({ ...item, version: (expectedVersion ?? 0) + 1 })
      .where(({ version }, { eq, notExists }) =>
        expectedVersion === undefined ? notExists(version) : eq(version, expectedVersion),
      )
      .commit(),
    ...events.map((event) => putEvent(entities, event)),
  ]);
  if (outcome.committed) return 'saved';
  return outcome.reasons[0]?.code === 'ConditionalCheckFailed' ? 'project_gone' : 'stale';
}

/**
 * Deletes the customer read at `version` with its `customer.deleted` event in one
 * transaction: 'stale' when it changed since, 'missing' when it went.
 */
export async function deleteCustomerWithEvent(
  item: Pick<CustomerItem, 'projectId' | 'customerId' | 'version'>,
  event: NewWebhookEventItem,
): Promise<'deleted' | 'stale'> {
  const outcome = await writeTransaction((entities) => [
    entities.customer
      .delete({ projectId: item.projectId, customerId: item.customerId })
      .where(({ version }, { eq }) => eq(version, item.version))
      .commit(),
    putEvent(entities, event),
  ]);
  return outcome.committed ? 'deleted' : 'stale';
}

/**
 * Deletes every customer of a project, whatever their number: a Query per page of keys and
 * batch deletes. Called by the project sweep once the project is marked as deleting, when
 * no customer can be written any more.
 */
export async function sweepCustomers(projectId: number): Promise<void> {
  const { customer } = db().entities;
  await deleteEveryPage(customer, (cursor) =>
    customer.query.byProject({ projectId }).go({ cursor, consistent: true, attributes: ['projectId', 'customerId'] }),
  );
}
