import type { CustomerItem, ProjectItem } from '#db/types.ts';
import type { StoredSubscription } from '../customers/schemas.ts';
import { changeCustomer, type Decision, storedSubscription } from '../customers/store.ts';
import { grantsAccess, LOCAL_CHANGE } from '../customers/subscription-status.ts';
import { UnavailableError } from '../errors.ts';
import { countPaidSubscription } from '../experiments/counting.ts';
import { openWebhookSecret } from '../payments/webhook-secret.ts';
import type { Ports, WebhookEvent } from '../ports.ts';
import { loadSharedProject } from '../share/share.ts';
import { versionOf } from '../versions/content.ts';
import { type CurrentVersion, withHeldVersion } from './held-version.ts';
import {
  customerIdOf,
  isOfProject,
  paidInExperiment,
  sessionEmailOf,
  stripeCustomerIdOf,
  subscriptionFrom,
  subscriptionFromSession,
} from './stripe-objects.ts';

/** A webhook opens the project's signing secret and verifies the event with it. */
export type WebhookPorts = Pick<Ports, 'keyring' | 'webhooks'>;

/**
 * What became of an event, in the 200 answer (Stripe's dashboard shows it): applied; a
 * duplicate of one already applied; stale (older than what the customer's subscription came
 * from); ignored (another type, another project's sale, nothing we sold).
 */
export type WebhookOutcome = 'applied' | 'duplicate' | 'stale' | 'ignored';

const SUBSCRIPTION_EVENTS = new Set([
  'customer.subscription.created',
  'customer.subscription.updated',
  'customer.subscription.deleted',
]);

type Skip = 'duplicate' | 'stale';

const seen = (current: CustomerItem | undefined, event: WebhookEvent) => current?.eventIds?.includes(event.id) ?? false;

/**
 * A plan change of this customer is waiting on Stripe (shared/domain/subscriptions/changes.ts):
 * its event is answered 503, so Stripe delivers it again once the change is stored, and it then
 * finds the change already there instead of racing it.
 */
function waitForChange(current: CustomerItem | undefined): void {
  if ((current?.changingUntil ?? 0) > Date.now()) {
    throw new UnavailableError("A plan change of this customer is being stored; Stripe's retry will apply this event.");
  }
}

/**
 * Stripe stamps events in whole seconds and delivers them in any order: within one second the
 * type says which came later in the subscription's life (a checkout's completion, then the
 * subscription's creation, its updates, its end). A change made here comes after the updates
 * of its second (a cancel's event arriving after the resume of the same second must not undo
 * it) and before an end, which nothing undoes.
 */
const ORDER_IN_A_SECOND: Readonly<Record<string, number>> = {
  'checkout.session.completed': 0,
  'customer.subscription.created': 1,
  'customer.subscription.updated': 2,
  [LOCAL_CHANGE]: 2.5,
  'customer.subscription.deleted': 3,
};

/** The fields one event may carry and another of the same second lack. */
const FILLABLE = ['billingInterval', 'currentPeriodStart', 'currentPeriodEnd'] as const;

/**
 * Two events of one subscription in one second, merged: the later one's values where it has
 * them, the earlier one's where it has none. Undefined when `next` adds nothing to `stored`.
 */
function mergeSameSecond(stored: StoredSubscription, next: StoredSubscription): StoredSubscription | undefined {
  const order = (subscription: StoredSubscription) => ORDER_IN_A_SECOND[subscription.eventType ?? ''] ?? -1;
  const nextIsLater = order(next) > order(stored);
  const [later, earlier] = nextIsLater ? [next, stored] : [stored, next];
  const merged = { ...later };
  for (const field of FILLABLE) merged[field] ??= earlier[field] as never;
  const changed = nextIsLater || FILLABLE.some((field) => merged[field] !== stored[field]);
  return changed ? merged : undefined;
}

/**
 * What a subscription event leaves stored, or undefined when it changes nothing. Older than
 * what the stored subscription came from: nothing. Another subscription (a plan change made
 * a new one): its end, or its fall out of access, leaves the current one alone. The same
 * subscription in the same second: the two merge.
 */
function subscriptionAfter(stored: StoredSubscription | null, next: StoredSubscription, event: WebhookEvent) {
  if (!stored) return next;
  if (event.created < stored.eventCreated) return undefined;
  if (stored.stripeSubscriptionId !== next.stripeSubscriptionId) {
    const keep =
      event.type === 'customer.subscription.deleted' || (!grantsAccess(next.status) && grantsAccess(stored.status));
    return keep ? undefined : next;
  }
  return event.created === stored.eventCreated ? mergeSameSecond(stored, next) : next;
}

function decideSubscription(event: WebhookEvent, next: StoredSubscription, currentVersion: CurrentVersion) {
  return (current: CustomerItem | undefined): Decision<Skip> => {
    if (seen(current, event)) return { skip: 'duplicate' };
    waitForChange(current);
    const stored = storedSubscription(current);
    const after = subscriptionAfter(stored, next, event);
    if (!after) return { skip: 'stale' };
    const stripeCustomerId = stripeCustomerIdOf(event.object);
    const subscription = withHeldVersion(stored, after, currentVersion);
    return { subscription, eventId: event.id, ...(stripeCustomerId ? { stripeCustomerId } : {}) };
  };
}

/**
 * A completed checkout names the customer (e-mail, Stripe customer) and, until the
 * subscription's own events say more, what was bought; it never overrides what a
 * subscription event of the same subscription or a newer event stored.
 */
function decideSession(event: WebhookEvent, next: StoredSubscription | undefined, currentVersion: CurrentVersion) {
  return (current: CustomerItem | undefined): Decision<Skip> => {
    if (seen(current, event)) return { skip: 'duplicate' };
    waitForChange(current);
    const stored = storedSubscription(current);
    const keep =
      !next ||
      (stored !== null &&
        (stored.stripeSubscriptionId === next.stripeSubscriptionId || stored.eventCreated > event.created));
    const email = sessionEmailOf(event.object);
    const stripeCustomerId = stripeCustomerIdOf(event.object);
    return {
      eventId: event.id,
      ...(keep ? {} : { subscription: withHeldVersion(stored, next, currentVersion) }),
      ...(email ? { email } : {}),
      ...(stripeCustomerId ? { stripeCustomerId } : {}),
    };
  };
}

async function apply(
  project: ProjectItem,
  event: WebhookEvent,
  currentVersion: CurrentVersion,
): Promise<WebhookOutcome> {
  const { object } = event;
  const isSession = event.type === 'checkout.session.completed';
  if (!isSession && !SUBSCRIPTION_EVENTS.has(event.type)) return 'ignored';
  // A sale of another project (two projects may share one Stripe account): not ours.
  if (!isOfProject(object, project.projectId)) return 'ignored';
  // Counted before the customer is stored, and on every delivery (a marker makes it once): a
  // failure to count is a 5xx that Stripe retries, and a retry never counts twice.
  const paid = isSession ? undefined : paidInExperiment(object);
  if (paid) {
    await countPaidSubscription(
      project.projectId,
      paid.experimentId,
      paid.variant,
      paid.stripeSubscriptionId,
      paid.monthly,
    );
  }
  const customerId = customerIdOf(object);
  if (!customerId) return 'ignored';
  let decide: (current: CustomerItem | undefined) => Decision<Skip>;
  if (isSession) {
    const next = subscriptionFromSession(object, event.created);
    decide = decideSession(event, next && { ...next, eventType: event.type }, currentVersion);
  } else {
    const next = subscriptionFrom(object, event.created, event.type === 'customer.subscription.deleted');
    if (!next) return 'ignored';
    decide = decideSubscription(event, { ...next, eventType: event.type }, currentVersion);
  }
  const { outcome } = await changeCustomer(project, customerId, decide);
  if (outcome === 'saved') return 'applied';
  // The project's delete started meanwhile: nothing of it is kept.
  return outcome === 'project_gone' ? 'ignored' : outcome;
}

/**
 * `POST /api/payments/webhook/{shareId}`: verifies the raw body against the project's sealed
 * signing secret, then applies the event exactly once. Inactive projects still take webhooks.
 * A failure to store throws (a 5xx), so Stripe retries.
 */
export async function receiveWebhook(
  ports: WebhookPorts,
  shareId: string,
  rawBody: string,
  signature: string | undefined,
): Promise<{ received: true; outcome: WebhookOutcome }> {
  const { project, plans } = await loadSharedProject(shareId, { includeInactive: true });
  const secret = await openWebhookSecret(ports.keyring, project);
  const event = await ports.webhooks.verify(rawBody, signature, secret);
  const currentVersion: CurrentVersion = (planId) => {
    const plan = plans.find((p) => p.planId === planId);
    return plan ? versionOf(plan) : undefined;
  };
  return { received: true, outcome: await apply(project, event, currentVersion) };
}
