import * as z from 'zod';
import { featureTypes } from '#contract/enums.ts';
import { sameShape } from '#contract/same-shape.ts';
import type * as contract from '#contract/share.ts';
import { CountableData } from '../features/schemas.ts';
import { Theme } from '../projects/theme.ts';

/** The public face of a project: nothing of the owner, no keys, no hidden plans, no URLs. */
export const ShareView = z.strictObject({
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
  features: z.array(
    z.strictObject({
      id: z.number(),
      name: z.string(),
      description: z.string(),
      featureType: z.enum(featureTypes),
      basePrice: z.number(),
      isCountable: z.boolean(),
      countableData: CountableData.nullable(),
    }),
  ),
  themeSettings: Theme,
});

export type ShareView = z.infer<typeof ShareView>;

// The widget reads the contract's types; this schema must produce exactly them.
sameShape<ShareView, contract.ShareView>(true);
