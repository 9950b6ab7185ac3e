import * as z from 'zod';
import { aggregationMethods, featureTypes } from '#contract/enums.ts';
import { limits } from '#contract/limits.ts';
import { amount, multiLineText, name, price, singleLineText } from '../fields.ts';
import { acceptingReadFields, lazySchema, readOnlyFields, strictObject } from '../validation.ts';

/** The fields of a feature's create and update bodies; countable fields travel flat in requests and inside `countableData` in responses. */
const featureFields = lazySchema(() => {
  /** `Standard` is accepted as another spelling; responses always say `Standart`. */
  const featureType = z
    .enum([...featureTypes, 'Standard'], { error: `must be one of ${featureTypes.join(', ')}` })
    .transform((value) => (value === 'Standard' ? 'Standart' : value));
  return strictObject({
    name: name(),
    description: multiLineText(limits.itemDescriptionMax),
    basePrice: price(),
    featureType,
    isCountable: z.boolean(),
    usageCount: amount(limits.usageCountMax),
    condition: singleLineText(limits.conditionMax),
    countPrice: price(),
    eventAggregationMethod: z.enum(aggregationMethods, { error: `must be one of ${aggregationMethods.join(', ')}` }),
  });
});

const createFeatureFields = lazySchema(() => featureFields().partial().required({ name: true, basePrice: true }));
const updateFeatureFields = lazySchema(() => featureFields().partial());

/** Defaults for everything but the required name and basePrice. */
export const featureDefaults = {
  description: '',
  featureType: 'Standart',
  isCountable: false,
  usageCount: 0,
  condition: 'Up to',
  countPrice: 0,
  eventAggregationMethod: 'count',
} as const satisfies Partial<CreateFeatureInput>;

export type CreateFeatureInput = z.infer<ReturnType<typeof createFeatureFields>>;
export type UpdateFeatureInput = z.infer<ReturnType<typeof updateFeatureFields>>;

export const CountableData = lazySchema(() =>
  z.object({
    usageCount: z.number(),
    condition: z.string(),
    countPrice: z.number(),
    eventAggregationMethod: z.enum(aggregationMethods),
  }),
);

export const FeatureView = lazySchema(() =>
  z.strictObject({
    id: z.number(),
    name: z.string(),
    description: z.string(),
    basePrice: z.number(),
    featureType: z.enum(featureTypes),
    isCountable: z.boolean(),
    countableData: CountableData().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
  }),
);

export type FeatureView = z.infer<ReturnType<typeof FeatureView>>;

/** What GET returns (id, countableData, createdAt...) is accepted and ignored; unknown fields are refused. */
const featureReadFields = () => readOnlyFields(FeatureView(), createFeatureFields());
export const CreateFeatureBody = lazySchema(() => acceptingReadFields(createFeatureFields(), featureReadFields()));
export const UpdateFeatureBody = lazySchema(() => acceptingReadFields(updateFeatureFields(), featureReadFields()));
