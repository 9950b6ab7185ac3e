import type { CreateEntityItem, EntityItem } from 'electrodb';
import { alignments, badgePositions, paymentsModes } from '#contract/enums.ts';
import { defineEntity, entityModel } from './model.ts';
import { idAttribute, ownerIndex, projectScopeAttributes, projectScopeIndexes, timestamps } from './project-scope.ts';

const text = { type: 'string', required: true } as const;

export const projectEntity = defineEntity({
  model: entityModel('project'),
  attributes: {
    ...projectScopeAttributes,
    projectId: idAttribute,
    name: { type: 'string', required: true },
    description: text,
    pricingPageDescription: text,
    currency: { type: 'string', required: true },
    annualDiscount: { type: 'number', required: true },
    annualDiscountEnabled: { type: 'boolean', required: true },
    isActive: { type: 'boolean', required: true },
    // Absent means null in the API.
    checkoutSuccessUrl: { type: 'string' },
    checkoutCancelUrl: { type: 'string' },
    checkoutTestSuccessUrl: { type: 'string' },
    checkoutTestCancelUrl: { type: 'string' },
    signupUrl: { type: 'string' },
    // The project's own Stripe key, sealed by the keyring (envelope encryption; see
    // shared/secrets). The mode is kept beside it in clear so views never need to decrypt.
    paymentKeySealed: { type: 'string' },
    paymentsMode: { type: paymentsModes },
    // The Stripe webhook signing secret (whsec_…), sealed by the same keyring.
    webhookSecretSealed: { type: 'string' },
    // Stored whole (defaults applied at creation); PUT merges in the domain.
    theme: {
      type: 'map',
      required: true,
      properties: {
        fontFamily: { type: 'string', required: true },
        primaryColor: { type: 'string', required: true },
        hoverColor: { type: 'string', required: true },
        buttonTextColor: { type: 'string', required: true },
        borderRadius: { type: 'string', required: true },
        pricingBackgroundColor: { type: 'string', required: true },
        pricingBorderColor: { type: 'string', required: true },
        customCSS: { type: 'string', required: true },
        showProjectName: { type: 'boolean', required: true },
        showPricingHeader: { type: 'boolean', required: true },
        headerAlign: { type: alignments, required: true },
        descriptionAlign: { type: alignments, required: true },
        toggleAlign: { type: alignments, required: true },
        popularBadgePosition: { type: badgePositions, required: true },
        // Absent means null: the widget derives them from pricingBackgroundColor.
        textColor: { type: 'string' },
        mutedTextColor: { type: 'string' },
      },
    },
    // Denormalised counts for `_count` in the project list, kept exact by updating them in
    // the same transaction that creates or deletes a feature or plan. They also enforce
    // the per-project limits in a condition expression.
    featureCount: { type: 'number', required: true, default: 0 },
    planCount: { type: 'number', required: true, default: 0 },
    // Optimistic lock for read-modify-write updates (theme merge).
    version: { type: 'number', required: true, default: 1 },
    // Every write in the project (its own fields, or any feature, plan or plan feature) adds
    // 1 in the same transaction: a write guarded by the revision a reader saw (If-Match)
    // fails if anything changed since.
    revision: { type: 'number', required: true, default: 1 },
    ...timestamps,
  },
  indexes: {
    ...projectScopeIndexes([]),
    byOwner: ownerIndex(['projectId']),
  },
});

export type ProjectItem = EntityItem<ReturnType<typeof projectEntity>>;
export type NewProjectItem = CreateEntityItem<ReturnType<typeof projectEntity>>;
