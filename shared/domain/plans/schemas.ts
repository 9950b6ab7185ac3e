import * as z from 'zod';
import { featureTypes } from '#contract/enums.ts';
import { limits } from '#contract/limits.ts';
import { multiLineText, multiplier, name, positiveId, price } from '../fields.ts';
import { acceptingReadFields, lazySchema, readOnlyFields, requestParsing, strictObject } from '../validation.ts';

const planFields = lazySchema(() => ({
  name: name(),
  description: multiLineText(limits.itemDescriptionMax),
  basePrice: price(),
  isPopular: z.boolean(),
  isVisible: z.boolean(),
  isFree: z.boolean(),
  freemiumDay: z
    .number()
    .int('must be a whole number of days')
    .min(0, 'must be 0 or more')
    .max(limits.freemiumDayMax, `must be at most ${limits.freemiumDayMax}`),
  isPerUserPricing: z.boolean(),
  perUserMultiplier: multiplier(),
}));

/** The fields a plan update may change. */
export const updatablePlanFields = () => Object.keys(planFields()) as (keyof ReturnType<typeof planFields>)[];

const FeatureRef = lazySchema(() =>
  strictObject({
    featureId: positiveId(),
    multiplier: multiplier().default(1),
  }),
);

const featureRefs = lazySchema(() =>
  z
    .array(FeatureRef(), { error: 'must be an array of { featureId, multiplier }' })
    .max(limits.featuresPerProject, `must list at most ${limits.featuresPerProject} features`),
);

const createPlanFields = lazySchema(() =>
  strictObject({ ...planFields(), features: featureRefs() })
    .partial()
    .required({ name: true }),
);
const updatePlanFields = lazySchema(() => strictObject(planFields()).partial());
const duplicatePlanFields = lazySchema(() => strictObject({ name: name() }).partial());

const BatchOfFeatures = lazySchema(() =>
  strictObject({ features: featureRefs().min(1, 'must list at least one feature') }),
);
const SingleFeature = lazySchema(() => FeatureRef().transform((ref) => ({ features: [ref] })));

/** What AddPlanFeaturesBody accepts, for the OpenAPI document (its transform hides the forms). */
export const AddPlanFeaturesForms = lazySchema(() => z.union([BatchOfFeatures(), FeatureRef()]));

/**
 * Add features to a plan: either `{ featureId, multiplier }` or `{ features: [...] }`.
 * The form is chosen by the presence of `features`, so errors speak of the form the caller
 * used rather than of a union of both.
 */
export const AddPlanFeaturesBody = lazySchema(() =>
  z.unknown().transform((body, ctx) => {
    const form = body !== null && typeof body === 'object' && 'features' in body ? BatchOfFeatures() : SingleFeature();
    const result = form.safeParse(body, requestParsing);
    if (result.success) return result.data;
    // Handed on as they are, so an unknown field is still named with its suggestion.
    for (const issue of result.error.issues) ctx.addIssue(issue as z.core.$ZodRawIssue);
    return z.NEVER;
  }),
);
const updatePlanFeatureFields = lazySchema(() => strictObject({ multiplier: multiplier() }));

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

export type CreatePlanInput = z.infer<ReturnType<typeof createPlanFields>>;
export type UpdatePlanInput = z.infer<ReturnType<typeof updatePlanFields>>;
export type FeatureRefInput = z.infer<ReturnType<typeof FeatureRef>>;

const featureSummary = lazySchema(() => ({
  id: z.number(),
  name: z.string(),
  featureType: z.enum(featureTypes),
  basePrice: z.number(),
}));

export const PlanFeatureView = lazySchema(() =>
  z.strictObject({
    id: z.number(),
    multiplier: z.number(),
    feature: z.strictObject(featureSummary()),
  }),
);

/** The plan-feature list (and its writes) also give description and isCountable. */
export const PlanFeatureDetailView = lazySchema(() =>
  z.strictObject({
    id: z.number(),
    multiplier: z.number(),
    feature: z.strictObject({ ...featureSummary(), description: z.string(), isCountable: z.boolean() }),
  }),
);

export const PlanView = lazySchema(() =>
  z.strictObject({
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
    planFeatures: z.array(PlanFeatureView()),
    createdAt: z.string(),
    updatedAt: z.string(),
  }),
);

/** Adding features answers what it did and the plan's assignments after it. */
export const AddPlanFeaturesView = lazySchema(() =>
  z.strictObject({
    added: z.number(),
    skipped: z.number(),
    features: z.array(PlanFeatureDetailView()),
  }),
);

export type AddPlanFeaturesView = z.infer<ReturnType<typeof AddPlanFeaturesView>>;

/**
 * What a plan's GET returns (id, planFeatures, createdAt...) is accepted and ignored, so
 * GET-edit-PUT works; unknown fields are refused. Duplicating takes a plan's fields the same way.
 */
const planReadFields = () => readOnlyFields(PlanView(), createPlanFields());
export const CreatePlanBody = lazySchema(() => acceptingReadFields(createPlanFields(), planReadFields()));
export const UpdatePlanBody = lazySchema(() => acceptingReadFields(updatePlanFields(), planReadFields()));
export const DuplicatePlanBody = lazySchema(() =>
  acceptingReadFields(duplicatePlanFields(), readOnlyFields(PlanView(), duplicatePlanFields())),
);
export const UpdatePlanFeatureBody = lazySchema(() =>
  acceptingReadFields(updatePlanFeatureFields(), readOnlyFields(PlanFeatureDetailView(), updatePlanFeatureFields())),
);

export type PlanFeatureView = z.infer<ReturnType<typeof PlanFeatureView>>;
export type PlanFeatureDetailView = z.infer<ReturnType<typeof PlanFeatureDetailView>>;
export type PlanView = z.infer<ReturnType<typeof PlanView>>;
