import { fromMinorUnits, toMinorUnits } from '#contract/pricing.ts';
import { getCustomerItem } from '#db/customers.ts';
import type { CustomerItem, ProjectItem, ProjectPartition } from '#db/types.ts';
import { settled } from '../customers/held-plan.ts';
import type { StoredSubscription } from '../customers/schemas.ts';
import { changeCustomer, storedSubscription } from '../customers/store.ts';
import { LOCAL_CHANGE } from '../customers/subscription-status.ts';
import { ConflictError, echo, NotFoundError, projectNotFound } from '../errors.ts';
import { openPaymentKey } from '../payments/account.ts';
import type { Ports } from '../ports.ts';
import type { CancelInput, ChangeInput, PreviewInput, PreviewView } from './schemas.ts';
import { type ChangeTarget, changedSubscription, changeTarget, liveSubscription } from './target.ts';

/**
 * Plan changes after the sale (lifecycle.md §2). A Stripe-sourced subscription changes at
 * Stripe first, through the project's own key, and is stored once Stripe has taken it; a
 * manual one changes here only. While a change waits on Stripe the customer is claimed: a
 * concurrent change is a 409, and the subscription's webhooks are answered 503 so Stripe
 * delivers them again after the change is stored (shared/domain/webhooks/webhook.ts). A
 * Stripe failure releases the claim and changes nothing here (502).
 */

export type ChangePorts = Pick<Ports, 'keyring' | 'payments' | 'clock'>;

/** Long enough for two Stripe attempts; a claim left by a crash lapses after it. */
const CLAIM_MS = 30_000;

const customerNotFound = (customerId: string) =>
  new NotFoundError(`Customer "${echo(customerId)}" not found in this project.`);

const notAtStripe = () =>
  new ConflictError("This customer's subscription is not in the project's Stripe account (any more).");

const isStripe = (
  subscription: StoredSubscription,
): subscription is StoredSubscription & { stripeSubscriptionId: string } =>
  subscription.source === 'stripe' && subscription.stripeSubscriptionId !== null;

/** The customer's live subscription as stored now (strongly consistent). */
async function readLive(project: ProjectItem, customerId: string) {
  const item = await getCustomerItem(project.projectId, customerId, { consistent: true });
  if (!item) throw customerNotFound(customerId);
  return liveSubscription(settled(storedSubscription(item), Date.now()));
}

/**
 * Claims the customer (checking the subscription with `check`), runs `atStripe` on the claimed
 * subscription, then stores what `after` makes of the subscription as stored then, releasing
 * the claim in the same write.
 */
async function claimed<T>(
  project: ProjectItem,
  customerId: string,
  atStripe: (subscription: StoredSubscription, claim: number) => Promise<T>,
  after: (subscription: StoredSubscription, result: T) => StoredSubscription,
  check?: (subscription: StoredSubscription) => void,
): Promise<CustomerItem> {
  const claim = await changeCustomer<'missing' | 'busy'>(project, customerId, (current) => {
    if (!current) return { skip: 'missing' };
    if ((current.changingUntil ?? 0) > Date.now()) return { skip: 'busy' };
    check?.(liveSubscription(settled(storedSubscription(current), Date.now())));
    return { changingUntil: Date.now() + CLAIM_MS };
  });
  if (claim.outcome === 'missing') throw customerNotFound(customerId);
  if (claim.outcome === 'busy') {
    throw new ConflictError('Another change of this customer is in progress; read it again and retry.');
  }
  if (claim.outcome !== 'saved') throw projectNotFound(project.slug);
  const subscription = liveSubscription(settled(storedSubscription(claim.item), Date.now()));
  let result: T;
  try {
    result = await atStripe(subscription, claim.item.version);
  } catch (error) {
    await changeCustomer<never>(project, customerId, () => ({ changingUntil: null }));
    throw error;
  }
  const saved = await changeCustomer<'missing'>(project, customerId, (current) => {
    const now = settled(storedSubscription(current), Date.now());
    return current ? { subscription: after(now ?? subscription, result), changingUntil: null } : { skip: 'missing' };
  });
  if (saved.outcome !== 'saved') throw customerNotFound(customerId);
  return saved.item;
}

/** The item update a change sends Stripe: new price, prorated as decided, metadata naming the new plan. */
function priceChange(
  project: ProjectItem,
  subscription: StoredSubscription & { stripeSubscriptionId: string },
  target: ChangeTarget,
) {
  return {
    subscriptionId: subscription.stripeSubscriptionId,
    currency: project.currency,
    unitAmount: toMinorUnits(target.price, project.currency),
    interval: target.interval,
    prorationBehavior: target.prorationBehavior,
    // An empty value removes the key at Stripe: a plan without seats leaves none behind.
    metadata: {
      planId: String(target.plan.planId),
      planVersion: String(target.version),
      seats: target.plan.isPerUserPricing ? String(target.seats) : '',
    },
  };
}

export async function previewChange(
  ports: ChangePorts,
  partition: ProjectPartition,
  customerId: string,
  input: PreviewInput,
  visibleOnly: boolean,
): Promise<PreviewView> {
  const { project } = partition;
  const subscription = await readLive(project, customerId);
  const target = await changeTarget(partition, subscription, input, visibleOnly);
  const view = (lines: { description: string; amount: number }[]): PreviewView => ({
    amountDue: fromMinorUnits(
      lines.reduce((sum, line) => sum + toMinorUnits(line.amount, project.currency), 0),
      project.currency,
    ),
    currency: project.currency,
    nextPeriodAmount: target.free ? 0 : target.price,
    lines,
  });
  if (!isStripe(subscription) || target.free || target.prorationBehavior === 'none') return view([]);
  const secretKey = await openPaymentKey(ports.keyring, project);
  const preview = await ports.payments.previewSubscriptionPrice(secretKey, priceChange(project, subscription, target));
  if (!preview) throw notAtStripe();
  return view(
    preview.lines.map((line) => ({
      description: line.description,
      amount: fromMinorUnits(line.amount, project.currency),
    })),
  );
}

export async function changePlan(
  ports: ChangePorts,
  partition: ProjectPartition,
  customerId: string,
  input: ChangeInput,
  visibleOnly: boolean,
): Promise<CustomerItem> {
  const { project } = partition;
  // Decided before the claim (bad input costs no write), and again on the claimed subscription.
  await changeTarget(partition, await readLive(project, customerId), input, visibleOnly);
  let target: ChangeTarget | undefined;
  return claimed(
    project,
    customerId,
    async (subscription, claim) => {
      target = await changeTarget(partition, subscription, input, visibleOnly);
      if (!isStripe(subscription)) return;
      const secretKey = await openPaymentKey(ports.keyring, project);
      const idempotencyKey = `change-${project.projectId}-${customerId}-${claim}`;
      const done = target.free
        ? await ports.payments.setCancelAtPeriodEnd(secretKey, {
            subscriptionId: subscription.stripeSubscriptionId,
            cancelAtPeriodEnd: true,
            idempotencyKey,
          })
        : await ports.payments.updateSubscriptionPrice(secretKey, {
            ...priceChange(project, subscription, target),
            idempotencyKey,
          });
      if (!done) throw notAtStripe();
    },
    (subscription) => changedSubscription(subscription, target as ChangeTarget, ports.clock.now()),
  );
}

/** Cancel at period end (the default), or now. A subscription already set to cancel stays so. */
export async function cancelPlan(
  ports: ChangePorts,
  partition: ProjectPartition,
  customerId: string,
  input: CancelInput,
): Promise<CustomerItem> {
  const { project } = partition;
  return claimed(
    project,
    customerId,
    async (subscription, claim) => {
      if (!isStripe(subscription)) return;
      const secretKey = await openPaymentKey(ports.keyring, project);
      const done = input.atPeriodEnd
        ? await ports.payments.setCancelAtPeriodEnd(secretKey, {
            subscriptionId: subscription.stripeSubscriptionId,
            cancelAtPeriodEnd: true,
            idempotencyKey: `cancel-${project.projectId}-${customerId}-${claim}`,
          })
        : await ports.payments.cancelSubscription(secretKey, subscription.stripeSubscriptionId);
      if (!done) throw notAtStripe();
    },
    (subscription) => {
      const eventCreated = Math.max(subscription.eventCreated, Math.floor(ports.clock.now() / 1000));
      return input.atPeriodEnd
        ? { ...subscription, cancelAtPeriodEnd: true, eventCreated, eventType: LOCAL_CHANGE }
        : { ...subscription, status: 'canceled', eventCreated, eventType: LOCAL_CHANGE };
    },
  );
}

/** Takes back a cancel at period end: 409 when none is set. */
export async function resumePlan(ports: ChangePorts, partition: ProjectPartition, customerId: string) {
  const { project } = partition;
  return claimed(
    project,
    customerId,
    async (subscription, claim) => {
      if (!isStripe(subscription)) return;
      const secretKey = await openPaymentKey(ports.keyring, project);
      const done = await ports.payments.setCancelAtPeriodEnd(secretKey, {
        subscriptionId: subscription.stripeSubscriptionId,
        cancelAtPeriodEnd: false,
        idempotencyKey: `resume-${project.projectId}-${customerId}-${claim}`,
      });
      if (!done) throw notAtStripe();
    },
    (subscription) => {
      const eventCreated = Math.max(subscription.eventCreated, Math.floor(ports.clock.now() / 1000));
      return { ...subscription, cancelAtPeriodEnd: false, eventCreated, eventType: LOCAL_CHANGE };
    },
    (subscription) => {
      if (!subscription.cancelAtPeriodEnd) {
        throw new ConflictError("This customer's subscription is not set to cancel: there is nothing to resume.");
      }
    },
  );
}

/** A Stripe billing portal session for the customer's Stripe customer: 409 when it has none. */
export async function portalSession(
  ports: ChangePorts,
  project: ProjectItem,
  customerId: string,
  returnUrl: string | undefined,
): Promise<{ url: string }> {
  const item = await getCustomerItem(project.projectId, customerId, { consistent: true });
  if (!item) throw customerNotFound(customerId);
  if (!item.stripeCustomerId) {
    throw new ConflictError(
      'This customer has no Stripe customer (no checkout yet): there is no billing portal for it.',
    );
  }
  const secretKey = await openPaymentKey(ports.keyring, project);
  const fallback = project.paymentsMode === 'live' ? project.checkoutSuccessUrl : project.checkoutTestSuccessUrl;
  const back = returnUrl ?? fallback ?? undefined;
  return ports.payments.createPortalSession(secretKey, {
    customer: item.stripeCustomerId,
    ...(back ? { returnUrl: back } : {}),
  });
}
