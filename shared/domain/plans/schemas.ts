import * as z from 'zod';
import { featureTypes } from '#contract/enums.ts';
import { limits } from '#contract/limits.ts';
import { multiLineText, multiplier, name, positiveId, price } from '../fields.ts';
import { acceptingReadFields, readOnlyFields, requestParsing, strictObject } from '../validation.ts';

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

export const FeatureRef = strictObject({
  featureId: positiveId,
  multiplier: multiplier.default(1),
});

const featureRefs = z
  .array(FeatureRef, { error: 'must be an array of { featureId, multiplier }' })
  .max(limits.featuresPerProject, `must list at most ${limits.featuresPerProject} features`);

const createPlanFields = strictObject({ ...planFields, features: featureRefs })
  .partial()
  .required({ name: true });
const updatePlanFields = strictObject(planFields).partial();
/** The fields a plan update may change. */
export const updatablePlanFields = Object.keys(planFields) as (keyof typeof planFields)[];
const duplicatePlanFields = strictObject({ name }).partial();

const BatchOfFeatures = strictObject({ features: featureRefs.min(1, 'must list at least one feature') });
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
  const result = form.safeParse(body, requestParsing);
  if (result.success) return result.data;
  // Handed on as they are, so an unknown field is still named with its suggestion.
  for (const issue of result.error.issues) ctx.addIssue(issue as z.core.$ZodRawIssue);
  return z.NEVER;
});
const updatePlanFeatureFields = strictObject({ multiplier });

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

export type CreatePlanInput = z.infer<typeof createPlanFields>;
export type UpdatePlanInput = z.infer<typeof updatePlanFields>;
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
  /** The plan's version (lifecycle.md §1): priced writes add 1. */
  version: z.number(),
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

/**
 * What a plan's GET returns (id, planFeatures, createdAt...) is accepted and ignored, so
 * GET-edit-PUT works; unknown fields are refused. Duplicating takes a plan's fields the same way.
 */
const planReadFields = readOnlyFields(PlanView, createPlanFields);
export const CreatePlanBody = acceptingReadFields(createPlanFields, planReadFields);
export const UpdatePlanBody = acceptingReadFields(updatePlanFields, planReadFields);
export const DuplicatePlanBody = acceptingReadFields(
  duplicatePlanFields,
  readOnlyFields(PlanView, duplicatePlanFields),
);
export const UpdatePlanFeatureBody = acceptingReadFields(
  updatePlanFeatureFields,
  readOnlyFields(PlanFeatureDetailView, updatePlanFeatureFields),
);

export type PlanFeatureView = z.infer<typeof PlanFeatureView>;
export type PlanFeatureDetailView = z.infer<typeof PlanFeatureDetailView>;
export type PlanView = z.infer<typeof PlanView>;
