import * as z from 'zod';
import { billingIntervals } from '#contract/enums.ts';
import { subscriptionStatuses } from '../customers/subscription-status.ts';
import { httpUrl, positiveId, seats, shareIdField as shareId } from '../fields.ts';
import { strictObject } from '../validation.ts';

/** Plan changes after the sale (lifecycle.md §2): the bodies of the v1 and the public calls, and their answers. */

const billingInterval = z.enum(billingIntervals, { error: 'must be "month" or "year"' }).optional();

const target = { planId: positiveId, billingInterval, seats: seats.optional() };

export const PreviewBody = strictObject(target);
export type PreviewInput = z.infer<typeof PreviewBody>;

export const ChangeBody = strictObject({
  ...target,
  at: z.enum(['now', 'period_end'], { error: 'must be "now" or "period_end"' }).optional(),
  prorate: z.boolean({ error: 'must be true or false' }).optional(),
});
export type ChangeInput = z.infer<typeof ChangeBody>;

export const CancelBody = strictObject({
  atPeriodEnd: z.boolean({ error: 'must be true or false' }).default(true),
});
export type CancelInput = z.infer<typeof CancelBody>;

export const PortalBody = strictObject({ returnUrl: httpUrl.optional() });
export type PortalInput = z.infer<typeof PortalBody>;

export const PreviewView = z.strictObject({
  /** Due now, in major units: the sum of `lines` (prorations; negative lines are credits). */
  amountDue: z.number(),
  currency: z.string(),
  /** The new plan's price for the billing interval, in major units. */
  nextPeriodAmount: z.number(),
  lines: z.array(z.strictObject({ description: z.string(), amount: z.number() })),
});
export type PreviewView = z.infer<typeof PreviewView>;

export const PortalView = z.strictObject({ url: z.string() });

export const CustomerTokenView = z.strictObject({ token: z.string(), expiresAt: z.string() });
export type CustomerTokenView = z.infer<typeof CustomerTokenView>;

/** What the widget sees of the token's customer: its subscription, nothing of its owner's records. */
export const PublicCustomerView = z.strictObject({
  customerId: z.string(),
  planId: z.number().nullable(),
  planVersion: z.number().nullable(),
  pendingPlanId: z.number().nullable(),
  status: z.enum(subscriptionStatuses).nullable(),
  billingInterval: z.enum(billingIntervals).nullable(),
  seats: z.number(),
  cancelAtPeriodEnd: z.boolean(),
  currentPeriodEnd: z.string().nullable(),
});
export type PublicCustomerView = z.infer<typeof PublicCustomerView>;

export const PublicPreviewBody = strictObject({ shareId, ...target });
export const PublicChangeBody = strictObject({ shareId, ...target });
export const PublicShareBody = strictObject({ shareId });
export const PublicPortalBody = strictObject({ shareId, returnUrl: httpUrl.optional() });
