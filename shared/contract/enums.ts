/**
 * The public enums of the API, each a tuple (for zod's `z.enum` and ElectroDB's enum
 * attributes alike) and its union type. They belong to the contract, not to storage: the
 * entities, the domain schemas and the widget all read them from here.
 */

/** 'Standart' is the API's own spelling, kept for its clients; requests may also send 'Standard'. */
export const featureTypes = ['Standart', 'Limits', 'Usage Based'] as const;
export type FeatureType = (typeof featureTypes)[number];

export const aggregationMethods = ['count', 'sum', 'max', 'unique_count', 'latest'] as const;
export type AggregationMethod = (typeof aggregationMethods)[number];

/** What an API key may do. */
export const permissions = ['read', 'read_write'] as const;
export type Permission = (typeof permissions)[number];

/** Which of the project's Stripe keys checkout uses. */
export const paymentsModes = ['test', 'live'] as const;
export type PaymentsMode = (typeof paymentsModes)[number];

export const billingIntervals = ['month', 'year'] as const;
export type BillingInterval = (typeof billingIntervals)[number];

/** Theme: where headers, descriptions and the interval toggle sit, and where the popular badge goes. */
export const alignments = ['left', 'center', 'right'] as const;
export type Alignment = (typeof alignments)[number];

export const badgePositions = ['top', 'inline'] as const;
export type BadgePosition = (typeof badgePositions)[number];

/** What a change-log entry records: its action, and the type of the resource it changed. */
export const changeActions = ['create', 'update', 'delete'] as const;
export const changeResourceTypes = [
  'project',
  'feature',
  'plan',
  'planFeature',
  'webhookEndpoint',
  'experiment',
] as const;

/** Where a pricing experiment stands (lifecycle.md §5): drafts are edited, then run once, then stopped. */
export const experimentStatuses = ['draft', 'running', 'stopped'] as const;

/** The events a project's webhook endpoints can receive (lifecycle.md §4). */
export const webhookEventTypes = [
  'subscription.created',
  'subscription.updated',
  'subscription.canceled',
  'customer.deleted',
  'usage.limit_approaching',
  'usage.limit_reached',
  'plan.version_created',
] as const;
export type WebhookEventType = (typeof webhookEventTypes)[number];

/** Where a delivery stands: `pending` while attempts remain. */
export const webhookDeliveryStatuses = ['pending', 'succeeded', 'failed'] as const;
export type WebhookDeliveryStatus = (typeof webhookDeliveryStatuses)[number];
