import { z } from 'zod';
import { featureTypes } from '#contract/enums.ts';
import { limits } from '#contract/limits.ts';
import { multiLineText, multiplier, name, positiveId, price } from '../fields.ts';

const planFields = {
  name,
  description: multiLineText(limits.itemDescriptionMax),
  basePrice: price,
  isPopular: z.boolean(),
  isVisible: z.boolean(),
  isFree: z.boolean(),
  freemiumDay: z
    .number()
    .int('must be a whole number of days')
    .min(0, 'must be 0 or more')
    .max(limits.freemiumDayMax, `must be at most ${limits.freemiumDayMax}`),
  isPerUserPricing: z.boolean(),
  perUserMultiplier: multiplier,
};

export const FeatureRef = z.object({
  featureId: positiveId,
  multiplier: multiplier.default(1),
});

const featureRefs = z
  .array(FeatureRef, { error: 'must be an array of { featureId, multiplier }' })
  .max(limits.featuresPerProject, `must list at most ${limits.featuresPerProject} features`);

export const CreatePlanBody = z
  .object({ ...planFields, features: featureRefs })
  .partial()
  .required({ name: true });
export const UpdatePlanBody = z.object(planFields).partial();
export const DuplicatePlanBody = z.object({ name }).partial();

const BatchOfFeatures = z.object({ features: featureRefs.min(1, 'must list at least one feature') });
const SingleFeature = FeatureRef.transform((ref) => ({ features: [ref] }));

/** What AddPlanFeaturesBody accepts, for the OpenAPI document (its transform hides the forms). */
export const AddPlanFeaturesForms = z.union([BatchOfFeatures, FeatureRef]);

/**
 * Add features to a plan: either `{ featureId, multiplier }` or `{ features: [...] }`.
 * The form is chosen by the presence of `features`, so errors speak of the form the caller
 * used rather than of a union of both.
 */
export const AddPlanFeaturesBody = z.unknown().transform((body, ctx) => {
  const form = body !== null && typeof body === 'object' && 'features' in body ? BatchOfFeatures : SingleFeature;
  const result = form.safeParse(body);
  if (result.success) return result.data;
  for (const issue of result.error.issues) ctx.addIssue({ code: 'custom', message: issue.message, path: issue.path });
  return z.NEVER;
});
export const UpdatePlanFeatureBody = z.object({ multiplier });

export const planDefaults = {
  description: '',
  basePrice: 0,
  isPopular: false,
  isVisible: true,
  isFree: false,
  freemiumDay: 0,
  isPerUserPricing: false,
  perUserMultiplier: 1,
} as const;

export type CreatePlanInput = z.infer<typeof CreatePlanBody>;
export type UpdatePlanInput = z.infer<typeof UpdatePlanBody>;
export type FeatureRefInput = z.infer<typeof FeatureRef>;

const featureSummary = {
  id: z.number(),
  name: z.string(),
  featureType: z.enum(featureTypes),
  basePrice: z.number(),
};

export const PlanFeatureView = z.strictObject({
  id: z.number(),
  multiplier: z.number(),
  feature: z.strictObject(featureSummary),
});

/** The plan-feature list (and its writes) also give description and isCountable. */
export const PlanFeatureDetailView = z.strictObject({
  id: z.number(),
  multiplier: z.number(),
  feature: z.strictObject({ ...featureSummary, description: z.string(), isCountable: z.boolean() }),
});

export const PlanView = z.strictObject({
  id: z.number(),
  name: z.string(),
  description: z.string(),
  basePrice: z.number(),
  isPopular: z.boolean(),
  isVisible: z.boolean(),
  isFree: z.boolean(),
  freemiumDay: z.number(),
  isPerUserPricing: z.boolean(),
  perUserMultiplier: z.number(),
  planFeatures: z.array(PlanFeatureView),
  createdAt: z.string(),
  updatedAt: z.string(),
});

/** Adding features answers what it did and the plan's assignments after it. */
export const AddPlanFeaturesView = z.strictObject({
  added: z.number(),
  skipped: z.number(),
  features: z.array(PlanFeatureDetailView),
});

export type AddPlanFeaturesView = z.infer<typeof AddPlanFeaturesView>;
export type PlanFeatureView = z.infer<typeof PlanFeatureView>;
export type PlanFeatureDetailView = z.infer<typeof PlanFeatureDetailView>;
export type PlanView = z.infer<typeof PlanView>;
