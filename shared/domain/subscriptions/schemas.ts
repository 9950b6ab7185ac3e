import * as z from 'zod';
import { billingIntervals } from '#contract/enums.ts';
import { subscriptionStatuses } from '../customers/subscription-status.ts';
import { httpUrl, positiveId, seats, shareIdField as shareId } from '../fields.ts';
import { lazySchema, strictObject } from '../validation.ts';

/** Plan changes after the sale (lifecycle.md §2): the bodies of the v1 and the public calls, and their answers. */

const billingInterval = lazySchema(() => z.enum(billingIntervals, { error: 'must be "month" or "year"' }).optional());

const target = lazySchema(() => ({
  planId: positiveId(),
  billingInterval: billingInterval(),
  seats: seats().optional(),
}));

export const PreviewBody = lazySchema(() => strictObject(target()));
export type PreviewInput = z.infer<ReturnType<typeof PreviewBody>>;

export const ChangeBody = lazySchema(() =>
  strictObject({
    ...target(),
    at: z.enum(['now', 'period_end'], { error: 'must be "now" or "period_end"' }).optional(),
    prorate: z.boolean({ error: 'must be true or false' }).optional(),
  }),
);
export type ChangeInput = z.infer<ReturnType<typeof ChangeBody>>;

export const CancelBody = lazySchema(() =>
  strictObject({
    atPeriodEnd: z.boolean({ error: 'must be true or false' }).default(true),
  }),
);
export type CancelInput = z.infer<ReturnType<typeof CancelBody>>;

export const PortalBody = lazySchema(() => strictObject({ returnUrl: httpUrl().optional() }));
export type PortalInput = z.infer<ReturnType<typeof PortalBody>>;

export const PreviewView = lazySchema(() =>
  z.strictObject({
    /** Due now, in major units: the sum of `lines` (prorations; negative lines are credits). */
    amountDue: z.number(),
    currency: z.string(),
    /** The new plan's price for the billing interval, in major units. */
    nextPeriodAmount: z.number(),
    lines: z.array(z.strictObject({ description: z.string(), amount: z.number() })),
  }),
);
export type PreviewView = z.infer<ReturnType<typeof PreviewView>>;

export const PortalView = lazySchema(() => z.strictObject({ url: z.string() }));

export const CustomerTokenView = lazySchema(() => z.strictObject({ token: z.string(), expiresAt: z.string() }));
export type CustomerTokenView = z.infer<ReturnType<typeof CustomerTokenView>>;

/** What the widget sees of the token's customer: its subscription, nothing of its owner's records. */
export const PublicCustomerView = lazySchema(() =>
  z.strictObject({
    customerId: z.string(),
    planId: z.number().nullable(),
    planVersion: z.number().nullable(),
    pendingPlanId: z.number().nullable(),
    status: z.enum(subscriptionStatuses).nullable(),
    billingInterval: z.enum(billingIntervals).nullable(),
    seats: z.number(),
    cancelAtPeriodEnd: z.boolean(),
    currentPeriodEnd: z.string().nullable(),
  }),
);
export type PublicCustomerView = z.infer<ReturnType<typeof PublicCustomerView>>;

export const PublicPreviewBody = lazySchema(() => strictObject({ shareId: shareId(), ...target() }));
export const PublicChangeBody = lazySchema(() => strictObject({ shareId: shareId(), ...target() }));
export const PublicShareBody = lazySchema(() => strictObject({ shareId: shareId() }));
export const PublicPortalBody = lazySchema(() => strictObject({ shareId: shareId(), returnUrl: httpUrl().optional() }));
