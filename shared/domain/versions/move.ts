import { intervalPrice, planMonthlyPrice, toMinorUnits } from '#contract/pricing.ts';
import type { CustomerItem, ProjectPartition } from '#db/types.ts';
import { log } from '#shared/logger.ts';
import { settled } from '../customers/held-plan.ts';
import type { StoredSubscription } from '../customers/schemas.ts';
import { changeCustomer, storedSubscription } from '../customers/store.ts';
import { LOCAL_CHANGE } from '../customers/subscription-status.ts';
import { openPaymentKey } from '../payments/account.ts';
import type { MigrationJob, Ports } from '../ports.ts';
import type { VersionContent } from './content.ts';
import type { Holder } from './holders.ts';

/** Customers moved at once: Stripe calls and customer writes overlap this much. */
const PARALLEL_MOVES = 8;

type MovePorts = Pick<Ports, 'keyring' | 'payments'>;

/**
 * The subscription after the move: at once, or (period end) pending until its period ends; a
 * manual one without a period end moves at once. Its `eventCreated` moves to now, so a Stripe
 * event from before the move, delivered after it, cannot undo it.
 */
function moved(subscription: StoredSubscription, job: MigrationJob): StoredSubscription {
  const eventCreated = Math.max(subscription.eventCreated, Math.floor(Date.now() / 1000));
  const atOnce = job.at === 'now' || (subscription.source === 'manual' && subscription.currentPeriodEnd === null);
  return atOnce
    ? { ...subscription, planVersion: job.toVersion, pendingVersion: null, eventCreated, eventType: LOCAL_CHANGE }
    : { ...subscription, pendingVersion: job.toVersion, eventCreated, eventType: LOCAL_CHANGE };
}

/** Whether the customer as stored now still holds a from-version and is not already on its way. */
function stillHolds(current: CustomerItem | undefined, job: MigrationJob): StoredSubscription | undefined {
  const subscription = settled(storedSubscription(current), Date.now());
  if (!subscription || subscription.planId !== job.planId || subscription.customPlan) return undefined;
  if (subscription.planVersion === null || !job.fromVersions.includes(subscription.planVersion)) return undefined;
  return subscription.pendingVersion === job.toVersion ? undefined : subscription;
}

/**
 * Moves holders to the job's version. A Stripe-sourced subscription first gets the new price at
 * Stripe (one item update, prorated now or from the next period, with `metadata.planId` and
 * `planVersion`), then the stored subscription moves, decided again on what is stored then (a
 * webhook or a grant may have changed it meanwhile). Cut short anywhere, each customer is on one
 * version; a resend finds who has not moved and moves them (Stripe's idempotency key makes a
 * repeated price update the same one). One customer whose move fails (Stripe refuses its
 * subscription) does not hold back the others: the run goes on and fails with that error at
 * its end, so the resend, or the queue's redelivery, finds only the customers still to move.
 */
export async function moveHolders(
  ports: MovePorts,
  partition: ProjectPartition,
  job: MigrationJob,
  holders: Holder[],
  target: VersionContent,
  budget: { exhausted(): boolean } = { exhausted: () => false },
): Promise<'done' | 'unfinished'> {
  const { project } = partition;
  let secretKey: Promise<string> | undefined;
  const moveOne = async ({ customer, subscription }: Holder) => {
    if (subscription.source === 'stripe' && subscription.stripeSubscriptionId) {
      secretKey ??= openPaymentKey(ports.keyring, project);
      const interval = subscription.billingInterval ?? 'month';
      const price = intervalPrice(planMonthlyPrice(target, subscription.seats), interval, project);
      await ports.payments.updateSubscriptionPrice(await secretKey, {
        subscriptionId: subscription.stripeSubscriptionId,
        currency: project.currency,
        unitAmount: toMinorUnits(price, project.currency),
        interval,
        prorationBehavior: job.at === 'now' ? 'create_prorations' : 'none',
        metadata: { planId: String(job.planId), planVersion: String(job.toVersion) },
        idempotencyKey: `migrate-${project.projectId}-${subscription.stripeSubscriptionId}-${subscription.planVersion}-${job.toVersion}-${job.at}`,
      });
    }
    await changeCustomer<'moved'>(project, customer.customerId, (current) => {
      const holding = stillHolds(current, job);
      return holding ? { subscription: moved(holding, job) } : { skip: 'moved' };
    });
  };
  let failure: { error: unknown } | undefined;
  let outcome: 'done' | 'unfinished' = 'done';
  for (let i = 0; i < holders.length; i += PARALLEL_MOVES) {
    if (budget.exhausted()) {
      outcome = 'unfinished';
      break;
    }
    const group = holders.slice(i, i + PARALLEL_MOVES);
    const failed = (await Promise.allSettled(group.map(moveOne))).filter((r) => r.status === 'rejected');
    failure ??= failed[0] && { error: failed[0].reason };
    // A whole group failing points at a cause no one customer has (Stripe or DynamoDB down):
    // the run stops there rather than fail every later customer the same way.
    if (failed.length === group.length) break;
  }
  // Out of time, the hand-over carries on and tries the failed customers again with the rest;
  // at the end, the failure is the run's, so the message (or the request) fails and is retried.
  if (failure && outcome === 'unfinished') {
    const { name, message } = failure.error as Error;
    log({ level: 'error', msg: 'plan migration: a move failed; the hand-over retries it', error: { name, message } });
  } else if (failure) {
    throw failure.error;
  }
  return outcome;
}
