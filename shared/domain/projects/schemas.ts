import { z } from 'zod';
import { paymentsModes } from '#contract/enums.ts';
import { limits } from '#contract/limits.ts';
import { FeatureView } from '../features/schemas.ts';
import { amount, currency, httpUrl, multiLineText, name } from '../fields.ts';
import { paymentKeyPattern, webhookSecretPattern } from '../payments/payment-key.ts';
import { PlanView } from '../plans/schemas.ts';
import { Theme, ThemePatch } from './theme.ts';

export const slugPattern = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

export const slug = z
  .string()
  .max(limits.slugMax, `must be at most ${limits.slugMax} characters`)
  .regex(slugPattern, 'must be lower-case letters and digits in groups joined by single hyphens, e.g. "acme-pro"');

const projectFields = {
  name,
  description: multiLineText(limits.projectDescriptionMax),
  pricingPageDescription: multiLineText(limits.pricingPageDescriptionMax),
  currency,
  annualDiscount: amount(1).refine((value) => value < 1, 'must be less than 1 (0.2 means 20% off)'),
  annualDiscountEnabled: z.boolean(),
  isActive: z.boolean(),
  checkoutSuccessUrl: httpUrl.nullable(),
  checkoutCancelUrl: httpUrl.nullable(),
  checkoutTestSuccessUrl: httpUrl.nullable(),
  checkoutTestCancelUrl: httpUrl.nullable(),
  theme: ThemePatch,
  // Write-only: sealed on write, never returned. The message must not echo the value.
  paymentSecretKey: z
    .string({ error: 'must be a string or null' })
    .regex(
      paymentKeyPattern,
      'must be a Stripe secret key (sk_test_…, sk_live_…) or restricted key (rk_test_…, rk_live_…)',
    )
    .nullable(),
  // Write-only too: the Stripe webhook signing secret, sealed like paymentSecretKey.
  paymentWebhookSecret: z
    .string({ error: 'must be a string or null' })
    .regex(webhookSecretPattern, 'must be a Stripe webhook signing secret (whsec_ and at least 16 letters or digits)')
    .nullable(),
};

/** Unknown and read-only fields (id, shareId, _count, features...) are ignored. */
export const CreateProjectBody = z
  .object({ ...projectFields, slug })
  .partial()
  .required({ name: true });
export const UpdateProjectBody = z.object(projectFields).partial();

export const projectDefaults = {
  description: '',
  pricingPageDescription: '',
  currency: 'USD',
  annualDiscount: 0,
  annualDiscountEnabled: false,
  isActive: true,
} as const;

export type CreateProjectInput = z.infer<typeof CreateProjectBody>;
export type UpdateProjectInput = z.infer<typeof UpdateProjectBody>;

const projectBase = {
  id: z.number(),
  name: z.string(),
  slug: z.string(),
  description: z.string(),
  shareId: z.string(),
  currency: z.string(),
  isActive: z.boolean(),
  paymentsConnected: z.boolean(),
  paymentsMode: z.enum(paymentsModes).nullable(),
  paymentWebhookConnected: z.boolean(),
  // Where Stripe must send this project's events: paste it into Stripe's dashboard.
  webhookUrl: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
};

export const ProjectView = z.strictObject({
  ...projectBase,
  pricingPageDescription: z.string(),
  annualDiscount: z.number(),
  annualDiscountEnabled: z.boolean(),
  checkoutSuccessUrl: z.string().nullable(),
  checkoutCancelUrl: z.string().nullable(),
  checkoutTestSuccessUrl: z.string().nullable(),
  checkoutTestCancelUrl: z.string().nullable(),
  themeSettings: Theme,
  features: z.array(FeatureView),
  pricingPlans: z.array(PlanView),
});

export const ProjectSummaryView = z.strictObject({
  ...projectBase,
  _count: z.strictObject({ features: z.number(), pricingPlans: z.number() }),
});

export type ProjectView = z.infer<typeof ProjectView>;
export type ProjectSummaryView = z.infer<typeof ProjectSummaryView>;
