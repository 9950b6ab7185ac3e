import { getCustomerItem, saveCustomerItem } from '#db/customers.ts';
import type { CustomerItem, ProjectItem } from '#db/types.ts';
import { definedOnly } from '../fields.ts';
import { untilWritten } from '../versions.ts';
import { dueEvent, outboxEvent, subscriptionEventType } from '../webhooks-out/events.ts';
import { settled, waitsForPeriodEnd } from './held-plan.ts';
import type { CustomerView, StoredSubscription } from './schemas.ts';

/** How many applied Stripe event ids a customer keeps (see docs/decisions.md). */
const EVENT_IDS_KEPT = 100;

/** What a change writes; undefined leaves a field as it is, null removes it. */
export interface CustomerChange {
  email?: string | null;
  stripeCustomerId?: string;
  subscription?: StoredSubscription | null;
  /** The Stripe event that made the change, remembered so a redelivery changes nothing. */
  eventId?: string;
  /** A plan change's claim on the customer while it waits on Stripe (epoch ms); null releases it. */
  changingUntil?: number | null;
}

/** A decision on the customer as stored: a change, or why nothing changes. */
export type Decision<Skip extends string> = CustomerChange | { skip: Skip };

export type ChangeOutcome<Skip extends string> =
  | { outcome: 'saved'; item: CustomerItem }
  | { outcome: Skip | 'project_gone'; item: CustomerItem | undefined };

export const storedSubscription = (item: CustomerItem | undefined) =>
  (item?.subscription ?? null) as StoredSubscription | null;

/**
 * Read, decide, write: the decision sees the customer as stored (strongly consistent) and the
 * write is conditional on its version, so concurrent changes (a duplicate delivery, a manual
 * grant during a webhook) are decided again on what the other wrote, never lost or doubled.
 */
export async function changeCustomer<Skip extends string>(
  project: Pick<ProjectItem, 'ownerId' | 'slug' | 'projectId'>,
  customerId: string,
  decide: (current: CustomerItem | undefined) => Decision<Skip>,
): Promise<ChangeOutcome<Skip>> {
  const { ownerId, slug, projectId } = project;
  // A plain write (no If-Match): it outlasts concurrent writers of the customer, each round
  // after a random wait, and a burst that never settles is a 503 with Retry-After.
  return untilWritten('customer', {}, async (): Promise<ChangeOutcome<Skip> | 'stale'> => {
    const current = await getCustomerItem(projectId, customerId, { consistent: true });
    const decision = decide(current);
    if ('skip' in decision) return { outcome: decision.skip, item: current };
    const nowMs = Date.now();
    const now = new Date(nowMs).toISOString();
    const pick = <T>(next: T | null | undefined, stored: T | undefined) =>
      next === undefined ? stored : (next ?? undefined);
    const before = storedSubscription(current);
    // A change whose time has come is written as taken effect (whoever writes first), so the
    // one write that takes it from pending to held reports it.
    const chosen = pick(decision.subscription, current?.subscription as StoredSubscription | undefined);
    const item = definedOnly({
      projectId,
      customerId,
      email: pick(decision.email, current?.email),
      stripeCustomerId: pick(decision.stripeCustomerId, current?.stripeCustomerId),
      subscription: chosen && (settled(chosen, nowMs) ?? undefined),
      changingUntil: pick(decision.changingUntil, current?.changingUntil),
      eventIds: decision.eventId
        ? [...(current?.eventIds ?? []), decision.eventId].slice(-EVENT_IDS_KEPT)
        : current?.eventIds,
      createdAt: current?.createdAt ?? now,
      updatedAt: now,
    }) as Omit<CustomerItem, 'version'>;
    const version = (current?.version ?? 0) + 1;
    const after = storedSubscription(item as CustomerItem);
    // Against the subscription as stored and as read: a change that took effect since it was
    // stored is reported by this write too, and so is a write that undoes it.
    const type = subscriptionEventType(before, after) ?? subscriptionEventType(settled(before, nowMs), after);
    const events = type ? [outboxEvent(projectId, type, toCustomerView({ ...item, version }))] : [];
    const due = waitingChange(after, nowMs);
    if (due && due.key !== waitingChange(before, nowMs)?.key) events.push(dueEvent(project, customerId, due.at));
    const saved = await saveCustomerItem({ ownerId, slug }, item, current?.version, events);
    if (saved === 'saved') return { outcome: 'saved', item: { ...item, version } };
    if (saved === 'project_gone') return { outcome: 'project_gone', item: current };
    return 'stale';
  });
}

/**
 * A manual subscription's change that waits for its period end (a pending plan or version, a
 * cancel), as `plan/version/cancel@periodEnd` (the same string for the same wait), or undefined.
 */
function waitingChange(subscription: StoredSubscription | null, nowMs: number) {
  if (!subscription || !waitsForPeriodEnd(subscription)) return undefined;
  const end = subscription.currentPeriodEnd;
  if (end === null || Date.parse(end) <= nowMs) return undefined;
  const pending = `${subscription.pendingPlanId ?? ''}/${subscription.pendingVersion ?? ''}`;
  return { at: end, key: `${pending}/${subscription.cancelAtPeriodEnd ? 'cancel' : ''}@${end}` };
}

export function toCustomerView(item: CustomerItem): CustomerView {
  const stored = settled(storedSubscription(item), Date.now());
  let subscription: CustomerView['subscription'] = null;
  if (stored) {
    const { eventCreated: _created, eventType: _type, pendingSeats: _seats, ...view } = stored;
    subscription = view;
  }
  return {
    customerId: item.customerId,
    email: item.email ?? null,
    stripeCustomerId: item.stripeCustomerId ?? null,
    subscription,
    createdAt: item.createdAt,
    updatedAt: item.updatedAt,
  };
}
