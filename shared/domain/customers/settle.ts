import type { DueRef } from '../webhooks-out/delivery.ts';
import { settled, waitsForPeriodEnd } from './held-plan.ts';
import { changeCustomer, storedSubscription } from './store.ts';

/**
 * Writes a manual subscription's waiting change (a plan, version or seats; a cancel) once its
 * period has ended, with its `subscription.updated` (or `subscription.canceled`) in the same
 * transaction (store.ts), when the wake-up set by the change comes. Reads show the change
 * from the period's end on; this write is what reports it. Whichever write of the customer
 * comes first writes it (and its event): the others find nothing waiting, so the event is
 * sent once. A resume before the period's end leaves nothing waiting: its wake-up writes
 * nothing. `{ dueAt }` when the change is still to come (a wake-up early, or a change set
 * again since): the caller wakes it again then.
 */
export async function settleDue(ref: DueRef, now = Date.now()): Promise<{ dueAt?: number }> {
  let dueAt: number | undefined;
  await changeCustomer<'nothing'>(ref, ref.customerId, (current) => {
    const stored = storedSubscription(current);
    if (!stored || !waitsForPeriodEnd(stored)) return { skip: 'nothing' };
    const taken = settled(stored, now);
    if (taken && (taken.pendingVersion !== (stored.pendingVersion ?? null) || taken.status !== stored.status)) {
      return { subscription: taken };
    }
    if (stored.currentPeriodEnd !== null) dueAt = Date.parse(stored.currentPeriodEnd);
    return { skip: 'nothing' };
  });
  return dueAt === undefined ? {} : { dueAt };
}
