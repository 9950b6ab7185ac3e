import * as z from 'zod';
import { billingIntervals, featureTypes } from '#contract/enums.ts';
import { email, positiveId, seats } from '../fields.ts';
import { PageQuery } from '../pages.ts';
import { lazySchema, strictObject } from '../validation.ts';
import { subscriptionStatuses } from './subscription-status.ts';

/** PUT …/customers/{customerId}: a plan granted by hand. */
export const GrantBody = lazySchema(() =>
  strictObject({
    planId: positiveId(),
    status: z.enum(['active', 'trialing'], { error: 'must be "active" or "trialing"' }).default('active'),
    seats: seats().default(1),
    email: email().nullable().optional(),
    currentPeriodEnd: z.iso
      .datetime({ offset: true, error: 'must be an ISO 8601 date-time, e.g. 2027-01-01T00:00:00Z' })
      .transform((value) => new Date(value).toISOString())
      .nullable()
      .optional(),
  }),
);
export type GrantInput = z.infer<ReturnType<typeof GrantBody>>;

/** Customers page like every other list (shared/domain/pages.ts). */
export const ListCustomersQuery = lazySchema(() => PageQuery());

export const EntitlementQuery = lazySchema(() =>
  z.object({
    required: z
      .string()
      .regex(/^(?:0|[1-9][0-9]{0,14})(?:\.[0-9]{1,9})?$/, 'must be a number of 0 or more')
      .transform(Number)
      .optional(),
  }),
);

export const SubscriptionView = lazySchema(() =>
  z.strictObject({
    planId: z.number().nullable(),
    /** The plan's version it holds (lifecycle.md §1); null for a custom plan. */
    planVersion: z.number().nullable(),
    /** The version a period-end migration moves it to when its period ends; null when none. */
    pendingVersion: z.number().nullable(),
    /**
     * The plan a change at period end moves it to when its period ends (lifecycle.md §2), with
     * `pendingVersion`; null when none.
     */
    pendingPlanId: z.number().nullable(),
    customPlan: z.boolean(),
    features: z.array(z.strictObject({ featureId: z.number(), quantity: z.number().nullable() })).nullable(),
    status: z.enum(subscriptionStatuses),
    seats: z.number(),
    billingInterval: z.enum(billingIntervals).nullable(),
    currentPeriodStart: z.string().nullable(),
    currentPeriodEnd: z.string().nullable(),
    cancelAtPeriodEnd: z.boolean(),
    stripeSubscriptionId: z.string().nullable(),
    source: z.enum(['stripe', 'manual']),
    /**
     * The pricing experiment it was bought in (lifecycle.md §5), with the variant's price of the
     * plan: the price it keeps, whatever the experiment or the plan's current version become.
     * Absent when it was not bought in an experiment.
     */
    experiment: z.strictObject({ id: z.number(), variant: z.string(), basePrice: z.number().nullable() }).optional(),
  }),
);
export type SubscriptionView = z.infer<ReturnType<typeof SubscriptionView>>;

/**
 * What is stored: the view, the Stripe `created` and type of the event it came from (for
 * ordering; a manual grant has no type, a change made here `LOCAL_CHANGE`), and the seats a
 * change at period end moves it to with `pendingPlanId` (absent or null: none). The pending
 * seats stay internal: the Customer of billing.md has no field for them (docs/decisions.md).
 */
export type StoredSubscription = SubscriptionView & {
  eventCreated: number;
  eventType?: string;
  pendingSeats?: number | null;
};

export const CustomerView = lazySchema(() =>
  z.strictObject({
    customerId: z.string(),
    email: z.string().nullable(),
    stripeCustomerId: z.string().nullable(),
    subscription: SubscriptionView().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
  }),
);
export type CustomerView = z.infer<ReturnType<typeof CustomerView>>;

export const EntitlementView = lazySchema(() =>
  z.strictObject({
    featureId: z.number(),
    name: z.string(),
    featureType: z.enum(featureTypes),
    hasAccess: z.boolean(),
    limit: z.number().nullable(),
    usage: z.number(),
    remaining: z.number().nullable(),
    resetsAt: z.string(),
  }),
);
export type EntitlementView = z.infer<ReturnType<typeof EntitlementView>>;

export const EntitlementsView = lazySchema(() =>
  z.strictObject({
    customerId: z.string(),
    planId: z.number().nullable(),
    status: z.enum(subscriptionStatuses).nullable(),
    entitlements: z.array(EntitlementView()),
  }),
);
export type EntitlementsView = z.infer<ReturnType<typeof EntitlementsView>>;

export const CustomerListView = lazySchema(() =>
  z.strictObject({ customers: z.array(CustomerView()), nextCursor: z.string().nullable() }),
);
