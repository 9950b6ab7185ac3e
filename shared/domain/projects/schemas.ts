import * as z from 'zod';
import { paymentsModes } from '#contract/enums.ts';
import { limits } from '#contract/limits.ts';
import { customCss } from '../custom-css.ts';
import { FeatureView } from '../features/schemas.ts';
import { currency, httpUrl, multiLineText, name } from '../fields.ts';
import { paymentKeyPattern, webhookSecretPattern } from '../payments/payment-key.ts';
import { PlanView } from '../plans/schemas.ts';
import { acceptingReadFields, lazySchema, readOnlyFields, strictObject } from '../validation.ts';
import { slugPattern } from './slug.ts';
import { Theme } from './theme.ts';

export const slug = lazySchema(() =>
  z
    .string()
    .max(limits.slugMax, `must be at most ${limits.slugMax} characters`)
    .regex(slugPattern, 'must be lower-case letters and digits in groups joined by single hyphens, e.g. "acme-pro"'),
);

/**
 * `theme` in a request is partial and merges into what is stored. Unknown keys are refused.
 * customCSS is checked here, when it is written (custom-css.ts); a stored one is answered as
 * stored, so readers (the share view, the widget) do not parse CSS.
 */
export const ThemePatch = lazySchema(() => strictObject({ ...Theme().shape, customCSS: customCss() }).partial());

const projectFields = lazySchema(() => ({
  name: name(),
  description: multiLineText(limits.projectDescriptionMax),
  pricingPageDescription: multiLineText(limits.pricingPageDescriptionMax),
  currency: currency(),
  annualDiscount: z
    .number()
    .min(0, 'must be 0 or more (0.2 means 20% off)')
    .lt(1, 'must be below 1 (0.2 means 20% off)')
    .refine(
      (value) => value === 0 || value >= limits.smallestPositive,
      `must be 0 or at least $limits.smallestPositive`,
    ),
  annualDiscountEnabled: z.boolean(),
  isActive: z.boolean(),
  checkoutSuccessUrl: httpUrl().nullable(),
  checkoutCancelUrl: httpUrl().nullable(),
  checkoutTestSuccessUrl: httpUrl().nullable(),
  checkoutTestCancelUrl: httpUrl().nullable(),
  signupUrl: httpUrl().nullable(),
  theme: ThemePatch(),
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
}));

const createProjectFields = lazySchema(() =>
  strictObject({ ...projectFields(), slug: slug() })
    .partial()
    .required({ name: true }),
);
const updateProjectFields = lazySchema(() => strictObject(projectFields()).partial());

export const projectDefaults = {
  description: '',
  pricingPageDescription: '',
  currency: 'USD',
  annualDiscount: 0,
  annualDiscountEnabled: false,
  isActive: true,
} as const;

export type CreateProjectInput = z.infer<ReturnType<typeof createProjectFields>>;
export type UpdateProjectInput = z.infer<ReturnType<typeof updateProjectFields>>;

const projectBase = lazySchema(() => ({
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
}));

export const ProjectView = lazySchema(() =>
  z.strictObject({
    ...projectBase(),
    pricingPageDescription: z.string(),
    annualDiscount: z.number(),
    annualDiscountEnabled: z.boolean(),
    checkoutSuccessUrl: z.string().nullable(),
    checkoutCancelUrl: z.string().nullable(),
    checkoutTestSuccessUrl: z.string().nullable(),
    checkoutTestCancelUrl: z.string().nullable(),
    signupUrl: z.string().nullable(),
    themeSettings: Theme(),
    features: z.array(FeatureView()),
    pricingPlans: z.array(PlanView()),
  }),
);

export const ProjectSummaryView = lazySchema(() =>
  z.strictObject({
    ...projectBase(),
    _count: z.strictObject({ features: z.number(), pricingPlans: z.number() }),
  }),
);

/**
 * Unknown fields are refused; what GET returns (id, shareId, _count, features...) is accepted
 * and ignored, and `themeSettings` is read as `theme`, so GET-edit-PUT round trips work.
 */
const projectReadFields = () =>
  [
    ...readOnlyFields(ProjectView(), createProjectFields()),
    ...readOnlyFields(ProjectSummaryView(), createProjectFields(), ProjectView()),
  ].filter((field) => field !== 'themeSettings');
const themeAlias = { themeSettings: 'theme' };
export const CreateProjectBody = lazySchema(() =>
  acceptingReadFields(createProjectFields(), projectReadFields(), themeAlias),
);
// `slug()` is immutable: PUT accepts it as GET returns it, and ignores it.
export const UpdateProjectBody = lazySchema(() =>
  acceptingReadFields(updateProjectFields(), [...projectReadFields(), 'slug'], themeAlias),
);

export type ProjectView = z.infer<ReturnType<typeof ProjectView>>;
export type ProjectSummaryView = z.infer<ReturnType<typeof ProjectSummaryView>>;
