import * as z from 'zod';
import type { AggregationMethod } from '#contract/enums.ts';
import { deleteCustomerWithEvent, getCustomerItem, listCustomerItems } from '#db/customers.ts';
import type { CustomerItem, FeatureItem, ProjectKey } from '#db/types.ts';
import { deleteCustomerUsage, type MeteredFeature, readCustomerWithUsage } from '#db/usage.ts';
import { ConflictError, echo, featureNotFound, NotFoundError, projectNotFound, ValidationError } from '../errors.ts';
import { type PageQuery, pagedList } from '../pages.ts';
import { findPlan, loadProject } from '../projects/load.ts';
import { utcMonth } from '../usage/record.ts';
import { versionOf } from '../versions/content.ts';
import { outboxEvent } from '../webhooks-out/events.ts';
import { isCustomerId } from './customer-id.ts';
import { computeEntitlements, isAllowed } from './entitlements.ts';
import { heldPlan, settled } from './held-plan.ts';
import { loadProjectCached } from './project-cache.ts';
import type { CustomerView, EntitlementView, GrantInput } from './schemas.ts';
import { changeCustomer, storedSubscription, toCustomerView } from './store.ts';

/** How the customer reads use the project cache (shared/domain/customers/project-cache.ts). */
export interface ReadOptions {
  cacheTtlMs: number;
}

const customerNotFound = (customerId: string) =>
  new NotFoundError(`Customer "${echo(customerId)}" not found in this project.`);

/** A path customerId that cannot name a customer names none: 404, like a malformed plan id. */
function knownShape(customerId: string): void {
  if (!isCustomerId(customerId)) throw customerNotFound(customerId);
}

const customerPages = pagedList(
  () => z.string().refine(isCustomerId),
  (item: CustomerItem) => item.customerId,
);

/** A page of customers in byte order of customerId; one Query when the project is cached. */
export async function listCustomers(
  key: ProjectKey,
  query: PageQuery,
  options: ReadOptions,
): Promise<{ customers: CustomerView[]; nextCursor: string | null }> {
  const start = customerPages.start(query);
  const { project } = await loadProjectCached(key, options.cacheTtlMs);
  const page = await customerPages.fill(start, (after, count) => listCustomerItems(project.projectId, after, count));
  return { customers: page.items.map(toCustomerView), nextCursor: page.nextCursor };
}

export async function getCustomer(key: ProjectKey, customerId: string, options: ReadOptions): Promise<CustomerView> {
  knownShape(customerId);
  const { project } = await loadProjectCached(key, options.cacheTtlMs);
  const item = await getCustomerItem(project.projectId, customerId, { consistent: true });
  if (!item) throw customerNotFound(customerId);
  return toCustomerView(item);
}

/**
 * A plan granted by hand: creates the customer or replaces its subscription (a Stripe one
 * too), with `source: "manual"`. Hidden plans can be granted (an enterprise deal).
 */
export async function grantPlan(key: ProjectKey, customerId: string, input: GrantInput): Promise<CustomerView> {
  if (!isCustomerId(customerId)) {
    throw new ValidationError('customerId must be 1-128 characters of letters, digits and . _ : @ -', [
      { path: 'customerId', message: 'must be 1-128 characters of letters, digits and . _ : @ -' },
    ]);
  }
  const partition = await loadProject(key);
  const plan = findPlan(partition, input.planId);
  const now = new Date();
  const changed = await changeCustomer<never>(partition.project, customerId, () => ({
    ...(input.email !== undefined ? { email: input.email } : {}),
    subscription: {
      planId: plan.planId,
      planVersion: versionOf(plan),
      pendingVersion: null,
      pendingPlanId: null,
      customPlan: false,
      features: null,
      status: input.status,
      seats: input.seats,
      billingInterval: null,
      currentPeriodStart: now.toISOString(),
      currentPeriodEnd: input.currentPeriodEnd ?? null,
      cancelAtPeriodEnd: false,
      stripeSubscriptionId: null,
      source: 'manual',
      // Stripe events older than the grant change nothing (see webhooks).
      eventCreated: Math.floor(now.getTime() / 1000),
    },
  }));
  if (changed.outcome === 'saved') return toCustomerView(changed.item);
  throw projectNotFound(key.slug);
}

/**
 * The customer, its subscription and its usage; Stripe is not touched. A customer known only
 * by its usage events is found too (its usage goes).
 */
export async function deleteCustomer(key: ProjectKey, customerId: string): Promise<void> {
  knownShape(customerId);
  const { project } = await loadProject(key);
  const [removed, usageItems] = await Promise.all([
    deleteWithEvent(project.projectId, customerId),
    deleteCustomerUsage(project.projectId, customerId),
  ]);
  if (!removed && usageItems === 0) throw customerNotFound(customerId);
}

/**
 * Deletes the customer with its `customer.deleted` event (the Customer as it was) in one
 * transaction; a concurrent change of it is read again.
 */
async function deleteWithEvent(projectId: number, customerId: string): Promise<boolean> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const current = await getCustomerItem(projectId, customerId, { consistent: true });
    if (!current) return false;
    const event = outboxEvent(projectId, 'customer.deleted', toCustomerView(current));
    if ((await deleteCustomerWithEvent(current, event)) === 'deleted') return true;
  }
  throw new ConflictError('This customer kept changing while it was deleted; retry it.');
}

/** The project's countable features as their aggregates are keyed, kept with the cached definition. */
const meteredOf = new WeakMap<object, MeteredFeature[]>();
export function meteredFeatures(partition: { features: readonly FeatureItem[] }): MeteredFeature[] {
  let metered = meteredOf.get(partition);
  if (!metered) {
    metered = partition.features
      .filter((f) => f.isCountable)
      .map((f) => ({ featureId: f.featureId, method: f.eventAggregationMethod as AggregationMethod }));
    meteredOf.set(partition, metered);
  }
  return metered;
}

async function entitlementsOf(key: ProjectKey, customerId: string, options: ReadOptions) {
  knownShape(customerId);
  const partition = await loadProjectCached(key, options.cacheTtlMs);
  const now = new Date();
  // The customer and this month's aggregates of every countable feature, in one request. An
  // unknown customer is not an error: it has no subscription (and may have usage).
  const { customer, usage } = await readCustomerWithUsage(
    partition.project.projectId,
    customerId,
    utcMonth(now.getTime()),
    meteredFeatures(partition),
  );
  const subscription = settled(storedSubscription(customer), now.getTime());
  // The plan as cached grants what a customer on its current version holds; any other version
  // is read once per container and kept (versions never change).
  const held = await heldPlan(key, partition, subscription);
  return { partition, held, view: computeEntitlements(partition, customerId, subscription, usage, now, held) };
}

/** Every feature's entitlement: one DynamoDB request with the project cached, two cold. */
export async function getEntitlements(key: ProjectKey, customerId: string, options: ReadOptions) {
  return (await entitlementsOf(key, customerId, options)).view;
}

export async function getEntitlement(
  key: ProjectKey,
  customerId: string,
  featureId: number,
  required: number | undefined,
  options: ReadOptions,
): Promise<EntitlementView & { allowed: boolean }> {
  const { partition, held, view } = await entitlementsOf(key, customerId, options);
  const feature =
    partition.features.find((f) => f.featureId === featureId) ??
    held?.content.features.find((f) => f.featureId === featureId);
  const entitlement = view.entitlements.find((e) => e.featureId === featureId);
  if (!feature || !entitlement) throw featureNotFound(featureId);
  return { ...entitlement, allowed: isAllowed(entitlement, required, feature.isCountable) };
}
