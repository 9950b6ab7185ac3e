import { minorUnit } from '#contract/pricing.ts';
import { isCustomerId } from '../customers/customer-id.ts';
import type { StoredSubscription } from '../customers/schemas.ts';
import { type SubscriptionStatus, subscriptionStatuses } from '../customers/subscription-status.ts';
import { readFeatureDetails } from '../payments/feature-details.ts';

/**
 * Reading the verified payload as delivered (the subscription is not read again from Stripe,
 * which would cost a call per event and a Stripe outage per webhook). Stripe objects are untrusted shapes here even once signed: every field is
 * checked, and anything unexpected reads as absent, never as a crash.
 */

type Json = Record<string, unknown>;

const object = (value: unknown): Json | undefined =>
  value && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : undefined;
const string = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);
const number = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isFinite(value) ? value : undefined;
/** An expandable field: the id, or the expanded object's id. */
const idOf = (value: unknown) => string(value) ?? string(object(value)?.id);
const isoOf = (seconds: number | undefined) => {
  if (seconds === undefined) return null;
  const date = new Date(seconds * 1000);
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
};

export function metadataOf(value: Json): Record<string, string> {
  const metadata = object(value.metadata) ?? {};
  return Object.fromEntries(Object.entries(metadata).filter((e): e is [string, string] => typeof e[1] === 'string'));
}

/** Whether a session or subscription was sold through this project's checkout. */
export const isOfProject = (value: Json, projectId: number) => metadataOf(value).projectId === String(projectId);

/**
 * Who the event is about: `metadata.customerId` (our checkout sets it), the session's
 * `client_reference_id`, else Stripe's customer id (`cus_…`).
 */
export function customerIdOf(value: Json): string | undefined {
  const candidates = [metadataOf(value).customerId, string(value.client_reference_id), idOf(value.customer)];
  return candidates.find((candidate): candidate is string => candidate !== undefined && isCustomerId(candidate));
}

export const stripeCustomerIdOf = (value: Json) => idOf(value.customer);

/** A positive safe integer written as digits, else undefined. */
function wholeNumber(value: string | undefined): number | undefined {
  const parsed = /^[1-9][0-9]{0,15}$/.test(value ?? '') ? Number(value) : undefined;
  return parsed !== undefined && Number.isSafeInteger(parsed) ? parsed : undefined;
}

/** What was bought, from the metadata: a plan id, or a custom plan's features; undefined when neither. */
function purchaseOf(metadata: Record<string, string>) {
  const planId = wholeNumber(metadata.planId);
  // The version our checkout sold; null when the metadata names none (the webhook decides).
  if (planId !== undefined) {
    return { planId, planVersion: wholeNumber(metadata.planVersion) ?? null, customPlan: false, features: null };
  }
  const details = readFeatureDetails(metadata);
  if (!details) return undefined;
  const features = details.map((d) => ({ featureId: d.id, quantity: d.quantity }));
  return { planId: null, planVersion: null, customPlan: true, features };
}

const variantKeyPattern = /^[a-z0-9_-]{1,32}$/;

/**
 * The pricing experiment a plan was sold in (lifecycle.md §5), from the metadata our checkout
 * wrote: its id, the variant, and the variant's price of the plan (what the customer bought).
 */
function experimentOf(metadata: Record<string, string>) {
  const id = wholeNumber(metadata.experimentId);
  const variant = metadata.variant;
  if (id === undefined || !variant || !variantKeyPattern.test(variant)) return {};
  const price = Number(metadata.variantBasePrice);
  const basePrice = metadata.variantBasePrice && Number.isFinite(price) && price >= 0 ? price : null;
  return { experiment: { id, variant, basePrice } };
}

/**
 * A subscription event that shows a subscription sold in an experiment paid (`active` or
 * `past_due`): what its count needs, the monthly price from the item Stripe charges.
 */
export function paidInExperiment(value: Json) {
  const { experiment } = experimentOf(metadataOf(value));
  const id = string(value.id);
  const status = string(value.status);
  if (!experiment || !id || (status !== 'active' && status !== 'past_due')) return undefined;
  const items = object(value.items)?.data;
  const item = object(Array.isArray(items) ? items[0] : undefined) ?? {};
  const price = object(item.price) ?? {};
  const unitAmount = number(price.unit_amount) ?? 0;
  const currency = string(price.currency) ?? string(value.currency) ?? 'usd';
  const months = string(object(price.recurring)?.interval) === 'year' ? 12 : 1;
  const quantity = number(item.quantity) ?? 1;
  const monthly = (unitAmount / minorUnit(currency).factor / months) * quantity;
  return { experimentId: experiment.id, variant: experiment.variant, stripeSubscriptionId: id, monthly };
}

/**
 * Seats: the item's quantity when it is not 1, else `metadata.seats` (our checkout sells a
 * per-seat plan as one item of the whole price, and names the seats in the metadata).
 */
function seatsOf(quantity: number | undefined, metadata: Record<string, string>): number {
  if (quantity !== undefined && quantity !== 1 && Number.isInteger(quantity) && quantity > 0) return quantity;
  const seats = Number(metadata.seats);
  return Number.isInteger(seats) && seats > 0 ? seats : 1;
}

/** A `customer.subscription.*` payload as our subscription; undefined when it sold nothing we know. */
export function subscriptionFrom(value: Json, created: number, deleted: boolean): StoredSubscription | undefined {
  const metadata = metadataOf(value);
  const purchase = purchaseOf(metadata);
  const id = string(value.id);
  const status = string(value.status);
  if (!purchase || !id || !subscriptionStatuses.includes(status as SubscriptionStatus)) return undefined;
  const items = object(value.items)?.data;
  const item = object(Array.isArray(items) ? items[0] : undefined) ?? {};
  const interval = string(object(object(item.price)?.recurring)?.interval);
  return {
    ...purchase,
    ...experimentOf(metadata),
    pendingVersion: null,
    pendingPlanId: null,
    status: deleted ? 'canceled' : (status as SubscriptionStatus),
    seats: seatsOf(number(item.quantity), metadata),
    billingInterval: interval === 'month' || interval === 'year' ? interval : null,
    currentPeriodStart: isoOf(number(item.current_period_start) ?? number(value.current_period_start)),
    currentPeriodEnd: isoOf(number(item.current_period_end) ?? number(value.current_period_end)),
    cancelAtPeriodEnd: value.cancel_at_period_end === true,
    stripeSubscriptionId: id,
    source: 'stripe',
    eventCreated: created,
  };
}

/**
 * A completed Checkout Session says what was bought but not the subscription's state: until
 * its `customer.subscription.*` event arrives, it reads as active (trialing when nothing was
 * paid: our checkout never sells at 0, so that is a trial), with no period yet.
 */
export function subscriptionFromSession(value: Json, created: number): StoredSubscription | undefined {
  const metadata = metadataOf(value);
  const purchase = purchaseOf(metadata);
  const id = idOf(value.subscription);
  if (!purchase || !id || value.mode !== 'subscription') return undefined;
  return {
    ...purchase,
    ...experimentOf(metadata),
    pendingVersion: null,
    pendingPlanId: null,
    status: value.payment_status === 'no_payment_required' ? 'trialing' : 'active',
    seats: seatsOf(undefined, metadata),
    billingInterval: null,
    currentPeriodStart: null,
    currentPeriodEnd: null,
    cancelAtPeriodEnd: false,
    stripeSubscriptionId: id,
    source: 'stripe',
    eventCreated: created,
  };
}

export const sessionEmailOf = (value: Json) =>
  string(object(value.customer_details)?.email) ?? string(value.customer_email);
