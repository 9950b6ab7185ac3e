import * as z from 'zod';
import { aggregationMethods, featureTypes } from '#contract/enums.ts';
import { limits } from '#contract/limits.ts';
import { amount, multiLineText, name, price, singleLineText } from '../fields.ts';

/** `Standard` is accepted as another spelling; responses always say `Standart`. */
const featureType = z
  .enum([...featureTypes, 'Standard'], { error: `must be one of ${featureTypes.join(', ')}` })
  .transform((value) => (value === 'Standard' ? 'Standart' : value));

const featureFields = {
  name,
  description: multiLineText(limits.itemDescriptionMax),
  basePrice: price,
  featureType,
  isCountable: z.boolean(),
  usageCount: amount(limits.usageCountMax),
  condition: singleLineText(limits.conditionMax),
  countPrice: price,
  eventAggregationMethod: z.enum(aggregationMethods, { error: `must be one of ${aggregationMethods.join(', ')}` }),
};

/** Countable fields travel flat in requests and inside `countableData` in responses. */
export const CreateFeatureBody = z.object(featureFields).partial().required({ name: true, basePrice: true });
export const UpdateFeatureBody = z.object(featureFields).partial();

/** Defaults of decisions.md for everything but the required name and basePrice. */
export const featureDefaults = {
  description: '',
  featureType: 'Standart',
  isCountable: false,
  usageCount: 0,
  condition: 'Up to',
  countPrice: 0,
  eventAggregationMethod: 'count',
} as const satisfies Partial<CreateFeatureInput>;

export type CreateFeatureInput = z.infer<typeof CreateFeatureBody>;
export type UpdateFeatureInput = z.infer<typeof UpdateFeatureBody>;

export const CountableData = z.object({
  usageCount: z.number(),
  condition: z.string(),
  countPrice: z.number(),
  eventAggregationMethod: z.enum(aggregationMethods),
});

export const FeatureView = z.strictObject({
  id: z.number(),
  name: z.string(),
  description: z.string(),
  basePrice: z.number(),
  featureType: z.enum(featureTypes),
  isCountable: z.boolean(),
  countableData: CountableData.nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});

export type FeatureView = z.infer<typeof FeatureView>;
