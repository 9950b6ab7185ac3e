import type { BillingInterval } from '#contract/enums.ts';
import { type AnnualDiscount, intervalPrice, planMonthlyPrice } from '#contract/pricing.ts';
import { type VersionContent, versionLimit } from './content.ts';
import type { MigrationPreview, MigrationPreviewRow } from './schemas.ts';

/** Sums and prices shown are for reading: binary noise stripped, as checkout's messages do. */
const tidy = (value: number) => Number(value.toPrecision(12));

/**
 * What a subscription pays a month at a version, as checkout charges it: seats for per-user
 * plans, and a yearly price spread over its twelve months (the annual discount included).
 * A subscription without an interval (a manual grant) is priced by the month.
 */
export function monthlyOf(
  content: VersionContent,
  seats: number,
  interval: BillingInterval | null,
  discount: AnnualDiscount,
): number {
  const monthly = planMonthlyPrice(content, seats);
  return interval === 'year' ? intervalPrice(monthly, 'year', discount) / 12 : monthly;
}

/** The version as the customer pays it: its own price, or the one it bought in an experiment. */
const held = (content: VersionContent, basePrice: number | null | undefined): VersionContent =>
  basePrice === null || basePrice === undefined || content.isFree ? content : { ...content, basePrice };

export interface PreviewInput {
  customerId: string;
  fromVersion: number;
  seats: number;
  billingInterval: BillingInterval | null;
  /**
   * The base price it bought when that was not its version's: a pricing experiment's variant
   * (lifecycle.md §5). Null: the version's.
   */
  heldBasePrice?: number | null;
  /** This month's usage by feature id. */
  usage: ReadonlyMap<number, number>;
}

/** One customer's move: price before and after, features it loses, limits its usage already passes. */
export function previewRow(
  input: PreviewInput,
  from: VersionContent,
  to: VersionContent,
  toVersion: number,
  discount: AnnualDiscount,
): MigrationPreviewRow {
  const kept = new Set(to.features.map((f) => f.featureId));
  const overLimit: MigrationPreviewRow['overLimit'] = [];
  for (const feature of to.features) {
    const newLimit = versionLimit(feature);
    const usage = input.usage.get(feature.featureId) ?? 0;
    if (newLimit !== null && usage > newLimit) overLimit.push({ featureId: feature.featureId, usage, newLimit });
  }
  return {
    customerId: input.customerId,
    fromVersion: input.fromVersion,
    toVersion,
    monthlyBefore: tidy(monthlyOf(held(from, input.heldBasePrice), input.seats, input.billingInterval, discount)),
    monthlyAfter: tidy(monthlyOf(to, input.seats, input.billingInterval, discount)),
    lostFeatures: from.features.filter((f) => !kept.has(f.featureId)).map((f) => f.featureId),
    overLimit,
  };
}

/** The preview's answer: rows in customer order, and the MRR before and after. */
export function previewTotals(rows: MigrationPreviewRow[]): MigrationPreview {
  return {
    customers: rows,
    totals: {
      customers: rows.length,
      mrrBefore: tidy(rows.reduce((sum, row) => sum + row.monthlyBefore, 0)),
      mrrAfter: tidy(rows.reduce((sum, row) => sum + row.monthlyAfter, 0)),
    },
  };
}
