import type { CustomerItem, ProjectItem } from '#db/types.ts';
import { grantsAccess, type StoredSubscription } from '../customers/schemas.ts';
import { changeCustomer, type Decision, storedSubscription } from '../customers/store.ts';
import { openWebhookSecret } from '../payments/webhook-secret.ts';
import type { Ports, WebhookEvent } from '../ports.ts';
import { loadSharedProject } from '../share/share.ts';
import { versionOf } from '../versions/content.ts';
import { type CurrentVersion, withHeldVersion } from './held-version.ts';
import {
  customerIdOf,
  isOfProject,
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
 * Whether a subscription event changes what is stored. Older than what the stored subscription
 * came from: no. Another subscription (a plan change made a new one): its end, or its fall out
 * of access, leaves the current one alone. Within one second of the same subscription,
 * `created` never overrides, and nothing overrides its cancellation.
 */
function subscriptionIsNewer(stored: StoredSubscription | null, next: StoredSubscription, event: WebhookEvent) {
  if (!stored) return true;
  if (event.created < stored.eventCreated) return false;
  if (stored.stripeSubscriptionId !== next.stripeSubscriptionId) {
    return !(
      event.type === 'customer.subscription.deleted' ||
      (!grantsAccess(next.status) && grantsAccess(stored.status))
    );
  }
  if (event.created === stored.eventCreated) {
    return event.type !== 'customer.subscription.created' && stored.status !== 'canceled';
  }
  return true;
}

function decideSubscription(event: WebhookEvent, next: StoredSubscription, currentVersion: CurrentVersion) {
  return (current: CustomerItem | undefined): Decision<Skip> => {
    if (seen(current, event)) return { skip: 'duplicate' };
    const stored = storedSubscription(current);
    if (!subscriptionIsNewer(stored, next, event)) return { skip: 'stale' };
    const stripeCustomerId = stripeCustomerIdOf(event.object);
    const subscription = withHeldVersion(stored, next, currentVersion);
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
  const customerId = customerIdOf(object);
  if (!customerId) return 'ignored';
  let decide: (current: CustomerItem | undefined) => Decision<Skip>;
  if (isSession) {
    decide = decideSession(event, subscriptionFromSession(object, event.created), currentVersion);
  } else {
    const next = subscriptionFrom(object, event.created, event.type === 'customer.subscription.deleted');
    if (!next) return 'ignored';
    decide = decideSubscription(event, next, currentVersion);
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
