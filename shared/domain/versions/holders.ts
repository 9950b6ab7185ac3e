import { listCustomerItems } from '#db/customers.ts';
import type { CustomerItem } from '#db/types.ts';
import { settled } from '../customers/held-plan.ts';
import type { StoredSubscription } from '../customers/schemas.ts';
import { storedSubscription } from '../customers/store.ts';
import { grantsAccess } from '../customers/subscription-status.ts';

/** Customers read per Query while looking for a plan's holders. */
const PAGE = 500;

export interface Holder {
  customer: CustomerItem;
  subscription: StoredSubscription;
  /** The version it holds (a subscription stored without one holds the current version). */
  version: number;
}

/**
 * Every subscription that holds a version of the plan (trialing, active or past due, not a
 * custom plan), as it reads now (a manual period-end migration whose period has ended has
 * taken effect), in customer id order: the project's customers, read a page at a time. A
 * holder list is as long as the project's customer list: versions are counted at read, so no
 * customer write has to move a counter that every checkout of the plan would contend on.
 */
export async function holdersOf(projectId: number, planId: number, currentVersion: number): Promise<Holder[]> {
  const holders: Holder[] = [];
  const now = Date.now();
  for (let after: string | undefined, more = true; more; ) {
    const page = await listCustomerItems(projectId, after, PAGE);
    for (const customer of page.items) {
      const subscription = settled(storedSubscription(customer), now);
      if (!subscription || subscription.customPlan || subscription.planId !== planId) continue;
      if (!grantsAccess(subscription.status)) continue;
      holders.push({ customer, subscription, version: subscription.planVersion ?? currentVersion });
    }
    more = page.more;
    after = page.items.at(-1)?.customerId;
    if (after === undefined) break;
  }
  return holders;
}
