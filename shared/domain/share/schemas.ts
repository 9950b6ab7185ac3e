import * as z from 'zod';
import { featureTypes } from '#contract/enums.ts';
import { sameShape } from '#contract/same-shape.ts';
import type * as contract from '#contract/share.ts';
import { CountableData } from '../features/schemas.ts';
import { Theme } from '../projects/theme.ts';
import { lazySchema } from '../validation.ts';

const ShareFeature = lazySchema(() =>
  z.strictObject({
    id: z.number(),
    name: z.string(),
    description: z.string(),
    featureType: z.enum(featureTypes),
    basePrice: z.number(),
    isCountable: z.boolean(),
    countableData: CountableData().nullable(),
  }),
);

/** The public face of a project: nothing of the owner, no keys, no hidden plans, no URLs. */
export const ShareView = lazySchema(() =>
  z.strictObject({
    id: z.number(),
    name: z.string(),
    description: z.string(),
    pricingPageDescription: z.string(),
    currency: z.string(),
    annualDiscount: z.number(),
    annualDiscountEnabled: z.boolean(),
    paymentsConnected: z.boolean(),
    signupUrl: z.string().nullable(),
    plans: z.array(
      z.strictObject({
        id: z.number(),
        name: z.string(),
        description: z.string(),
        basePrice: z.number(),
        isFree: z.boolean(),
        isPopular: z.boolean(),
        freemiumDay: z.number(),
        isPerUserPricing: z.boolean(),
        perUserMultiplier: z.number(),
        features: z.array(
          z.strictObject({
            name: z.string(),
            included: z.boolean(),
            limit: z.number().nullable(),
            featureType: z.enum(featureTypes),
            condition: z.string().nullable(),
          }),
        ),
      }),
    ),
    features: z.array(ShareFeature()),
    themeSettings: Theme(),
    pricingPlans: z
      .array(
        z.strictObject({
          id: z.number(),
          name: z.string(),
          description: z.string(),
          order: z.number().describe('Position among the visible plans, in id order, from 0.'),
          isVisible: z.boolean(),
          isPopular: z.boolean(),
          isFree: z.boolean(),
          basePrice: z.number(),
          freemiumDay: z.number(),
          isPerUserPricing: z.boolean(),
          perUserMultiplier: z.number(),
          planFeatures: z.array(
            z.strictObject({
              id: z.number().describe("The assignment's own id."),
              multiplier: z.number(),
              feature: ShareFeature()
                .omit({ isCountable: true })
                .extend({
                  description: z
                    .string()
                    .optional()
                    .describe('Absent, with countableData, when the answer would be too large with them.'),
                  countableData: CountableData()
                    .nullable()
                    .optional()
                    .describe('Absent, with description, when the answer would be too large with them.'),
                }),
            }),
          ),
        }),
      )
      .optional()
      .describe(
        "Cuprice-compatible: the visible plans again, each with its assigned features' details, in the shape Cuprice's clients (its React SDK) read. Absent when the answer would be too large with it; `plans` and `features` are always there.",
      ),
    experiment: z
      .strictObject({ id: z.number(), variant: z.string() })
      .optional()
      .describe("While an experiment runs and the request names a visitor: the experiment and the visitor's variant."),
  }),
);

export type ShareView = z.infer<ReturnType<typeof ShareView>>;

// The widget reads the contract's types; this schema must produce exactly them.
sameShape<ShareView, contract.ShareView>(true);
