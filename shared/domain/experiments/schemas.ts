import * as z from 'zod';
import { experimentStatuses } from '#contract/enums.ts';
import { limits } from '#contract/limits.ts';
import { amount, name, positiveId } from '../fields.ts';
import { lazySchema, strictObject } from '../validation.ts';

/** Variants a pricing experiment has (lifecycle.md §5). */
export const VARIANTS_MIN = 2;
export const VARIANTS_MAX = 4;
/** Experiments a project keeps, stopped ones included (each is in every read of the project). */
export const EXPERIMENTS_MAX = 50;
/** Weights are small integers: their sum splits the hash space. */
const WEIGHT_MAX = 10_000;

const variantKey = lazySchema(() =>
  z.string({ error: 'is required' }).regex(/^[a-z0-9_-]{1,32}$/, 'must be 1-32 characters of a-z, 0-9, _ and -'),
);

const PlanOverride = lazySchema(() =>
  strictObject({
    planId: positiveId(),
    basePrice: amount(limits.priceMax).optional(),
    freemiumDay: z
      .number({ error: 'must be a whole number of days' })
      .int('must be a whole number of days')
      .min(0, 'must be 0 or more')
      .max(limits.freemiumDayMax, `must be at most ${limits.freemiumDayMax}`)
      .optional(),
    isVisible: z.boolean({ error: 'must be true or false' }).optional(),
  }),
);

const Variant = lazySchema(() =>
  strictObject({
    key: variantKey(),
    weight: z
      .number({ error: 'is required: a positive whole number' })
      .int('must be a positive whole number')
      .min(1, 'must be a positive whole number')
      .max(WEIGHT_MAX, `must be at most ${WEIGHT_MAX}`),
    plans: z
      .array(PlanOverride(), { error: 'must be an array of {planId, basePrice?, freemiumDay?, isVisible?}' })
      .max(limits.plansPerProject, `must name at most ${limits.plansPerProject} plans`)
      .default([]),
  }),
);

const Variants = lazySchema(() =>
  z
    .array(Variant(), { error: 'must be an array of variants' })
    .min(VARIANTS_MIN, `must have ${VARIANTS_MIN} to ${VARIANTS_MAX} variants`)
    .max(VARIANTS_MAX, `must have ${VARIANTS_MIN} to ${VARIANTS_MAX} variants`)
    .superRefine((variants, context) => {
      const keys = new Set<string>();
      variants.forEach((variant, i) => {
        if (keys.has(variant.key)) {
          context.addIssue({ code: 'custom', path: [i, 'key'], message: `is used twice: "${variant.key}"` });
        }
        keys.add(variant.key);
        const plans = new Set<number>();
        variant.plans.forEach((plan, j) => {
          if (plans.has(plan.planId)) {
            context.addIssue({ code: 'custom', path: [i, 'plans', j, 'planId'], message: 'is overridden twice' });
          }
          plans.add(plan.planId);
        });
      });
    }),
);

export const CreateExperimentBody = lazySchema(() => strictObject({ name: name(), variants: Variants() }));
export const UpdateExperimentBody = lazySchema(() =>
  strictObject({ name: name().optional(), variants: Variants().optional() }),
);
export type CreateExperimentBody = z.output<ReturnType<typeof CreateExperimentBody>>;
export type UpdateExperimentBody = z.output<ReturnType<typeof UpdateExperimentBody>>;
export type VariantInput = z.output<ReturnType<typeof Variant>>;

const VariantView = lazySchema(() =>
  z.strictObject({
    key: z.string(),
    weight: z.number(),
    plans: z.array(
      z.strictObject({
        planId: z.number(),
        basePrice: z.number().optional(),
        freemiumDay: z.number().optional(),
        isVisible: z.boolean().optional(),
      }),
    ),
  }),
);

export const ExperimentView = lazySchema(() =>
  z.strictObject({
    id: z.number(),
    name: z.string(),
    status: z.enum(experimentStatuses),
    variants: z.array(VariantView()),
    createdAt: z.string(),
    startedAt: z.string().nullable(),
    stoppedAt: z.string().nullable(),
  }),
);
export type ExperimentView = z.infer<ReturnType<typeof ExperimentView>>;
export const ExperimentsView = lazySchema(() => z.strictObject({ experiments: z.array(ExperimentView()) }));

export const ResultsView = lazySchema(() =>
  z.strictObject({
    variants: z.array(
      z.strictObject({
        key: z.string(),
        visitors: z.number(),
        checkouts: z.number(),
        subscriptions: z.number(),
        conversion: z.number().describe('subscriptions / visitors; 0 for a variant without visitors'),
        conversionLow: z.number().describe('Lower bound of the 95% Wilson score interval'),
        conversionHigh: z.number().describe('Upper bound of the 95% Wilson score interval'),
        mrr: z.number().describe("Monthly price of the variant's paid subscriptions, in major units"),
        mrrPerVisitor: z.number(),
      }),
    ),
    probabilityBest: z
      .record(z.string(), z.number())
      .describe('Posterior probability that each variant converts best, under Beta(1,1) priors'),
  }),
);
export type ResultsView = z.infer<ReturnType<typeof ResultsView>>;
