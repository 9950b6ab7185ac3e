import * as z from 'zod';
import { billingIntervals } from '#contract/enums.ts';
import { limits } from '#contract/limits.ts';
import { customerIdPattern } from '../customers/customer-id.ts';
import { Visitor } from '../experiments/visitor.ts';
import { amount, email, positiveId, seats, shareIdField } from '../fields.ts';
import { acceptingReadFields, lazySchema, strictObject } from '../validation.ts';

const billingInterval = lazySchema(() =>
  z.enum(billingIntervals, { error: 'must be "month" or "year"' }).default('month'),
);
const customerEmail = lazySchema(() => email().optional());
/** The owner's own id for the buyer: Stripe's client_reference_id and metadata.customerId. */
const customerId = lazySchema(() =>
  z
    .string({ error: 'must be a string' })
    .regex(customerIdPattern, 'must be 1-128 characters of letters, digits and . _ : @ -')
    .optional(),
);

/**
 * A request never names its variant or experiment: the server computes both from the running
 * experiment and `visitor`. A body that sends them anyway (a page that echoes the share
 * answer's `experiment`, or a forgery) is served as if it had not; the price is the server's.
 */
export const IGNORED_CHECKOUT_FIELDS = ['variant', 'experimentId'] as const;

/** Redirect URLs are never taken from the request: they are the project's. Other unknown fields are refused. */
const planCheckoutFields = lazySchema(() =>
  strictObject({
    shareId: shareIdField(),
    planId: positiveId(),
    billingInterval: billingInterval(),
    seats: seats().optional(),
    customerEmail: customerEmail(),
    customerId: customerId(),
    // The widget's visitor id: while an experiment runs, the price is its variant's, which the
    // server computes from the experiment and this id; no request names a variant or a price.
    visitor: Visitor().optional(),
  }),
);
export const PlanCheckoutBody = lazySchema(() => acceptingReadFields(planCheckoutFields(), IGNORED_CHECKOUT_FIELDS));

export const CustomCheckoutBody = lazySchema(() =>
  strictObject({
    shareId: shareIdField(),
    billingInterval: billingInterval(),
    features: z
      .array(
        strictObject({
          featureId: positiveId(),
          quantity: amount(limits.usageCountMax).optional(),
        }),
        { error: 'must be an array of {featureId, quantity?}' },
      )
      .min(1, 'must name at least one feature')
      .max(limits.featuresPerProject, `must name at most ${limits.featuresPerProject} features`),
    customerEmail: customerEmail(),
    customerId: customerId(),
  }),
);

export const ReceiptQuery = lazySchema(() =>
  z.object({
    session_id: z
      .string({ error: 'is required: the checkout session id from the success URL' })
      .min(1, 'is required: the checkout session id from the success URL'),
    shareId: z.string({ error: 'is required' }).min(1, 'is required'),
  }),
);

/** Printable ASCII without spaces, short enough to prefix with the project. */
export const IdempotencyKey = lazySchema(() =>
  z
    .string()
    .regex(/^[\x21-\x7e]+$/, 'must be printable ASCII without spaces')
    .max(limits.idempotencyKeyMax, `must be at most ${limits.idempotencyKeyMax} characters`)
    .optional(),
);

export type PlanCheckoutInput = z.infer<ReturnType<typeof PlanCheckoutBody>>;
export type CustomCheckoutInput = z.infer<ReturnType<typeof CustomCheckoutBody>>;

export const CheckoutView = lazySchema(() => z.strictObject({ sessionId: z.string(), url: z.string() }));

/** The receipt a checkout's success page shows: its fields exactly, nothing more. */
export const ReceiptView = lazySchema(() =>
  z.strictObject({
    planName: z.string(),
    customPlan: z.boolean(),
    total: z.number(),
    currency: z.string(),
    customer: z.strictObject({ email: z.string().nullable() }),
    billingInterval: z.string(),
    subscriptionId: z.string(),
    metadata: z.record(z.string(), z.string()),
  }),
);

export type CheckoutView = z.infer<ReturnType<typeof CheckoutView>>;
export type ReceiptView = z.infer<ReturnType<typeof ReceiptView>>;
