import * as z from 'zod';
import { positiveId } from '../fields.ts';
import { lazySchema, strictObject } from '../validation.ts';

/** POST …/plans/{planId}/migrate (lifecycle.md §1). */
export const MigrateBody = lazySchema(() =>
  strictObject({
    fromVersions: z
      .array(positiveId(), { error: 'must be an array of version numbers' })
      .min(1, 'must list at least one version')
      .max(1_000, 'must list at most 1000 versions')
      .optional(),
    toVersion: positiveId().optional(),
    at: z.enum(['now', 'period_end'], { error: 'must be "now" or "period_end"' }).default('period_end'),
    dryRun: z.boolean({ error: 'must be true or false' }).default(false),
  }),
);
export type MigrateInput = z.infer<ReturnType<typeof MigrateBody>>;

export const VersionView = lazySchema(() =>
  z.strictObject({
    version: z.number(),
    createdAt: z.string(),
    basePrice: z.number(),
    isFree: z.boolean(),
    freemiumDay: z.number(),
    isPerUserPricing: z.boolean(),
    perUserMultiplier: z.number(),
    features: z.array(
      z.strictObject({ featureId: z.number(), name: z.string(), multiplier: z.number(), limit: z.number().nullable() }),
    ),
    customers: z.number(),
  }),
);
export type VersionView = z.infer<ReturnType<typeof VersionView>>;

export const VersionListView = lazySchema(() => z.strictObject({ versions: z.array(VersionView()) }));
export type VersionListView = z.infer<ReturnType<typeof VersionListView>>;

export const MigrationPreviewRow = lazySchema(() =>
  z.strictObject({
    customerId: z.string(),
    fromVersion: z.number(),
    toVersion: z.number(),
    monthlyBefore: z.number(),
    monthlyAfter: z.number(),
    lostFeatures: z.array(z.number()),
    overLimit: z.array(z.strictObject({ featureId: z.number(), usage: z.number(), newLimit: z.number() })),
  }),
);
export type MigrationPreviewRow = z.infer<ReturnType<typeof MigrationPreviewRow>>;

export const MigrationPreview = lazySchema(() =>
  z.strictObject({
    customers: z.array(MigrationPreviewRow()),
    totals: z.strictObject({ customers: z.number(), mrrBefore: z.number(), mrrAfter: z.number() }),
  }),
);
export type MigrationPreview = z.infer<ReturnType<typeof MigrationPreview>>;

export const MigrationStarted = lazySchema(() => z.strictObject({ migrating: z.number() }));
export type MigrationStarted = z.infer<ReturnType<typeof MigrationStarted>>;
