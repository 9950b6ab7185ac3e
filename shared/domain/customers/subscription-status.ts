/**
 * Subscription statuses and the mark of our own changes, apart from the customer schemas: the
 * webhook, version and plan code reads them without building those schemas at its cold start.
 */

/** Stripe's subscription statuses; the first three grant access. */
export const subscriptionStatuses = [
  'trialing',
  'active',
  'past_due',
  'canceled',
  'unpaid',
  'incomplete',
  'incomplete_expired',
  'paused',
] as const;
export type SubscriptionStatus = (typeof subscriptionStatuses)[number];
export const grantsAccess = (status: SubscriptionStatus | null | undefined) =>
  status === 'trialing' || status === 'active' || status === 'past_due';

/**
 * The `eventType` of a change this service made (at Stripe first, for a Stripe-sourced one): a
 * plan change, cancel, resume or migration. Stripe stamps events in whole seconds, so its events
 * of the change's own second may come from the change or from the calls just before it; the
 * change was stored after Stripe answered them all, so within that second it is the later.
 */
export const LOCAL_CHANGE = 'local.change';
