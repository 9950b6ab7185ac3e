import type { BillingInterval } from '#contract/enums.ts';
import { limits } from '#contract/limits.ts';
import { featureMonthlyPrice, intervalPrice, planMonthlyPrice, toMinorUnits } from '#contract/pricing.ts';
import type { FeatureItem, ProjectItem } from '#db/types.ts';
import { echo, featureNotFound, NotFoundError, ValidationError } from '../errors.ts';
import { controlOf, plansInVariant, runningExperiment, variantFor } from '../experiments/assignment.ts';
import { countCheckout } from '../experiments/counting.ts';
import type { Ports } from '../ports.ts';
import { loadSharedProject } from '../share/share.ts';
import { versionOf } from '../versions/content.ts';
import { checkoutRedirects, openPaymentKey } from './account.ts';
import { type FeatureDetail, featureDetailsMetadata, METADATA_KEYS_MAX } from './feature-details.ts';
import { countPublicPaymentCall } from './rate-limit.ts';
import type { CheckoutView, CustomCheckoutInput, PlanCheckoutInput } from './schemas.ts';
import { rememberCheckoutSession } from './sessions.ts';

export const CUSTOM_PLAN_NAME = 'Custom plan';

/** Prices shown (metadata, messages) are for reading; the charged total is rounded once, from the sum. */
const roundForDisplay = (value: number) => Number(value.toPrecision(12));

/** A checkout opens the project's key and calls its payment account, counted on the clock. */
export type CheckoutPorts = Pick<Ports, 'keyring' | 'payments' | 'clock'>;

/** Who asks: the address its calls count against, and its Idempotency-Key when it sent one. */
export interface Caller {
  clientAddress: string;
  idempotencyKey?: string | undefined;
}

interface Purchase {
  project: ProjectItem;
  interval: BillingInterval;
  /** In major units, per month and for the billing interval. */
  monthly: number;
  price: number;
  /** How messages name the purchase. */
  subject: string;
  /** For an amount of 0: the field at fault, what the visitor could choose instead, what the owner could do. */
  zero: { path: string; choices: string[]; owner?: string };
  productName: string;
  trialDays: number;
  metadata: Record<string, string>;
  customerEmail: string | undefined;
  /** The owner's id for the buyer; goes to Stripe as client_reference_id and metadata.customerId. */
  customerId: string | undefined;
  caller: Caller;
}

/** Amounts Stripe cannot take are the caller's problem (nothing to pay, too many seats), not Stripe's failure. */
function minorAmount(purchase: Purchase): number {
  const { price } = purchase;
  const { currency } = purchase.project;
  const minor = toMinorUnits(price, currency);
  if (minor === 0) throw nothingToPay(purchase);
  if (minor > limits.stripeAmountMax) {
    throw new ValidationError(
      `The price of this selection (${price} ${currency}) is more than Stripe accepts in one payment.`,
    );
  }
  return minor;
}

/**
 * A checkout whose amount rounds to 0 in the currency's minor unit is refused like a free
 * plan: the message names the amount and what would give it a price.
 */
function nothingToPay({ subject, price, monthly, interval, project, zero }: Purchase) {
  const { currency } = project;
  const yearly = interval === 'month' && toMinorUnits(intervalPrice(monthly, 'year', project), currency) > 0;
  const choices = [...zero.choices, ...(yearly ? ['yearly billing'] : [])];
  return new ValidationError(
    [
      `${subject} costs ${roundForDisplay(price)} ${currency} a ${interval}, which rounds to 0 ${currency}: there is nothing to check out.`,
      ...(choices.length > 0 ? [`Choose ${choices.join(' or ')}.`] : []),
      ...(zero.owner ? [zero.owner] : []),
    ].join(' '),
    [{ path: zero.path, message: `comes to 0 ${currency} once rounded to the currency's minor unit` }],
  );
}

/**
 * Everything about the project is checked before its key is opened: a visitor's bad
 * request never costs a decrypt or a call to Stripe, nor any of the project's rate limit.
 */
async function checkout(ports: CheckoutPorts, purchase: Purchase): Promise<CheckoutView> {
  const { project } = purchase;
  const unitAmount = minorAmount(purchase);
  const redirects = checkoutRedirects(project);
  await countPublicPaymentCall(ports.clock, project.projectId, purchase.caller.clientAddress);
  const secretKey = await openPaymentKey(ports.keyring, project);
  const session = await ports.payments.createCheckoutSession(secretKey, {
    currency: project.currency,
    unitAmount,
    interval: purchase.interval,
    productName: purchase.productName,
    ...(purchase.trialDays > 0 ? { trialDays: purchase.trialDays } : {}),
    metadata: { ...purchase.metadata, ...(purchase.customerId ? { customerId: purchase.customerId } : {}) },
    ...redirects,
    ...(purchase.customerEmail ? { customerEmail: purchase.customerEmail } : {}),
    ...(purchase.customerId ? { clientReferenceId: purchase.customerId } : {}),
    // Two projects may share one Stripe account: the project id keeps their keys apart.
    ...(purchase.caller.idempotencyKey
      ? { idempotencyKey: `project-${project.projectId}:${purchase.caller.idempotencyKey}` }
      : {}),
  });
  await rememberCheckoutSession(ports.clock, project.projectId, session.id);
  return { sessionId: session.id, url: session.url };
}

/** A subscription to one visible plan of an active project, priced on the server. */
export async function createPlanCheckout(
  ports: CheckoutPorts,
  input: PlanCheckoutInput,
  caller: Caller,
): Promise<CheckoutView> {
  const partition = await loadSharedProject(input.shareId);
  const { project } = partition;
  // While an experiment runs, the visitor's variant prices the plans (the control without a visitor).
  const experiment = runningExperiment(partition);
  const variant = experiment && (input.visitor ? variantFor(experiment, input.visitor) : controlOf(experiment));
  const plans = variant ? plansInVariant(partition.plans, variant) : partition.plans;
  const counted = experiment && variant && input.visitor ? { experiment, variant } : undefined;
  const plan = plans.find((p) => p.planId === input.planId && p.isVisible);
  if (!plan) throw new NotFoundError(`Plan ${echo(input.planId)} is not on this pricing page.`);
  if (plan.isFree) {
    throw new ValidationError(`Plan ${plan.planId} is free: there is nothing to check out.`, [
      { path: 'planId', message: 'is a free plan' },
    ]);
  }
  if (input.seats !== undefined && input.seats !== 1 && !plan.isPerUserPricing) {
    throw new ValidationError(`Plan ${plan.planId} is not priced per user, so it takes no seats.`, [
      { path: 'seats', message: 'applies only to per-user plans' },
    ]);
  }
  const seats = input.seats ?? 1;
  const monthly = planMonthlyPrice(plan, seats);
  const perSeat = plan.isPerUserPricing && plan.basePrice > 0 && plan.perUserMultiplier > 0;
  const view = await checkout(ports, {
    project,
    interval: input.billingInterval,
    monthly,
    price: intervalPrice(monthly, input.billingInterval, project),
    subject: `Plan ${plan.planId}`,
    zero: {
      path: 'planId',
      choices: perSeat && seats < limits.seatsMax ? ['more seats'] : [],
      owner: "The page's owner can give the plan a price, or mark it free.",
    },
    productName: plan.name,
    trialDays: plan.freemiumDay,
    metadata: {
      planId: String(plan.planId),
      // The version sold (lifecycle.md §1): the subscription holds it, whatever the plan becomes.
      planVersion: String(versionOf(plan)),
      projectId: String(project.projectId),
      ...(plan.isPerUserPricing ? { seats: String(seats) } : {}),
      // The experiment and variant it was sold in, and the variant's price: the subscription
      // remembers them, and keeps that price after the experiment stops.
      ...(counted
        ? {
            experimentId: String(counted.experiment.experimentId),
            variant: counted.variant.key,
            variantBasePrice: String(plan.basePrice),
          }
        : {}),
    },
    customerEmail: input.customerEmail,
    customerId: input.customerId,
    caller,
  });
  if (counted) await countCheckout(partition, counted.experiment.experimentId, counted.variant.key, view.sessionId);
  return view;
}

function chosenFeatures(features: FeatureItem[], input: CustomCheckoutInput) {
  const byId = new Map(features.map((f) => [f.featureId, f]));
  const seen = new Set<number>();
  return input.features.map((choice, index) => {
    if (seen.has(choice.featureId)) {
      throw new ValidationError(`Feature ${choice.featureId} is chosen twice.`, [
        { path: `features[${index}].featureId`, message: 'is chosen more than once' },
      ]);
    }
    seen.add(choice.featureId);
    const feature = byId.get(choice.featureId);
    if (!feature) throw featureNotFound(choice.featureId);
    if (choice.quantity !== undefined && !feature.isCountable) {
      throw new ValidationError(`Feature ${feature.featureId} is not countable, so it takes no quantity.`, [
        { path: `features[${index}].quantity`, message: 'applies only to countable features' },
      ]);
    }
    return { feature, quantity: feature.isCountable ? (choice.quantity ?? feature.usageCount) : null };
  });
}

/** A subscription to the visitor's own selection of features, priced on the server. */
export async function createCustomCheckout(
  ports: CheckoutPorts,
  input: CustomCheckoutInput,
  caller: Caller,
): Promise<CheckoutView> {
  const { project, features } = await loadSharedProject(input.shareId);
  const chosen = chosenFeatures(features, input);
  const interval = input.billingInterval;
  const details: FeatureDetail[] = chosen.map(({ feature, quantity }) => ({
    id: feature.featureId,
    name: feature.name,
    quantity,
    price: roundForDisplay(intervalPrice(featureMonthlyPrice(feature, quantity ?? 0), interval, project)),
  }));
  const monthly = chosen.reduce((sum, { feature, quantity }) => sum + featureMonthlyPrice(feature, quantity ?? 0), 0);
  // customerId (added to every checkout's metadata) takes one of Stripe's 50 keys too.
  const base = { projectId: String(project.projectId), ...(input.customerId ? { customerId: input.customerId } : {}) };
  const detailEntries = featureDetailsMetadata(details, METADATA_KEYS_MAX - Object.keys(base).length);
  if (!detailEntries) {
    throw new ValidationError(
      `These ${details.length} features do not fit in Stripe's metadata (${METADATA_KEYS_MAX} values of 500 characters); choose fewer features.`,
      [{ path: 'features', message: 'too many features for one checkout' }],
    );
  }
  const countable = chosen.some(({ feature }) => feature.isCountable && feature.countPrice > 0);
  return checkout(ports, {
    project,
    interval,
    monthly,
    price: intervalPrice(monthly, interval, project),
    subject: `This selection of ${chosen.length} feature${chosen.length === 1 ? '' : 's'}`,
    zero: { path: 'features', choices: [...(countable ? ['a larger quantity'] : []), 'features that have a price'] },
    productName: CUSTOM_PLAN_NAME,
    trialDays: 0,
    metadata: { ...base, ...detailEntries },
    customerEmail: input.customerEmail,
    customerId: input.customerId,
    caller,
  });
}
