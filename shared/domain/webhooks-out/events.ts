import type { WebhookEventType } from '#contract/enums.ts';
import type { NewWebhookEventItem } from '#db/webhook-deliveries.ts';
import { newEventId } from './event-ids.ts';

/**
 * The outbox items of a change (lifecycle.md §4): built by the use case that decides the
 * change, written by the storage function in the change's own transaction, so no event is
 * ever sent for a change that did not commit, nor lost for one that did.
 */
export function outboxEvent(projectId: number, type: WebhookEventType, data: unknown): NewWebhookEventItem {
  const eventId = newEventId();
  const body = JSON.stringify({ id: eventId, type, createdAt: new Date().toISOString(), data });
  return { projectId, eventId, type, body };
}

/**
 * The outbox item of a change that takes effect at `at` (ISO): it sends nothing itself; its
 * dispatch sets a wake-up for then (delivery.ts), which writes the change with its event.
 */
export function dueEvent(
  project: { projectId: number; ownerId: string; slug: string },
  customerId: string,
  at: string,
): NewWebhookEventItem {
  const { projectId, ownerId, slug } = project;
  return {
    projectId,
    eventId: newEventId(),
    type: 'subscription.updated',
    body: '{}',
    due: { ownerId, slug, customerId, at },
  };
}

/** What a subscription event compares: a change to none of these sends nothing. */
interface SubscriptionFields {
  planId: number | null;
  planVersion: number | null;
  status: string;
  seats: number;
  billingInterval: string | null;
  cancelAtPeriodEnd: boolean;
}

const ENDED = new Set(['canceled', 'incomplete_expired']);
const live = (subscription: SubscriptionFields | null): subscription is SubscriptionFields =>
  subscription !== null && !ENDED.has(subscription.status);
const compared = ['planId', 'planVersion', 'status', 'seats', 'billingInterval', 'cancelAtPeriodEnd'] as const;

/**
 * The subscription event of one customer write, if any: `created` when it starts one,
 * `canceled` when it ends one (only that one event either way), `updated` when it changes
 * the plan, version, status, seats, interval or cancel flag of a live one.
 */
export function subscriptionEventType(before: SubscriptionFields | null, after: SubscriptionFields | null) {
  if (!live(before)) return live(after) ? 'subscription.created' : undefined;
  if (!live(after)) return 'subscription.canceled';
  return compared.some((field) => before[field] !== after[field]) ? 'subscription.updated' : undefined;
}
