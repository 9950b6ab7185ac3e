import { createHash } from 'node:crypto';
import type { ExperimentItem } from '#db/experiments.ts';
import type { PlanItem, ProjectPartition } from '#db/types.ts';
import type { VariantInput } from './schemas.ts';

/** An experiment's variants as stored. */
export const variantsOf = (experiment: Pick<ExperimentItem, 'variants'>) => experiment.variants as VariantInput[];

/** The project's running experiment, read with the project (undefined: none runs). */
export const runningExperiment = (partition: Pick<ProjectPartition, 'experiments'>) =>
  partition.experiments.find((experiment) => experiment.status === 'running');

/**
 * The first 48 bits of SHA-256 of `experimentId:visitor`, as a fraction of 2^48: uniform,
 * the same in every function and at every request, and unrelated between experiments (a
 * visitor in the test arm of one is not in the test arm of the next).
 */
function unitHash(experimentId: number, visitor: string): number {
  return createHash('sha256').update(`${experimentId}:${visitor}`).digest().readUIntBE(0, 6) / 2 ** 48;
}

/**
 * The visitor's variant: the hash mapped onto the weights laid end to end. Deterministic, so
 * the share read and checkout agree without storing anything, and nothing in a request but
 * the visitor id decides it.
 */
export function variantFor(experiment: Pick<ExperimentItem, 'experimentId' | 'variants'>, visitor: string) {
  const variants = variantsOf(experiment);
  const total = variants.reduce((sum, v) => sum + v.weight, 0);
  let point = unitHash(experiment.experimentId, visitor) * total;
  for (const variant of variants) {
    if (point < variant.weight) return variant;
    point -= variant.weight;
  }
  return variants[variants.length - 1] as VariantInput;
}

/** The control: the first variant, what a page without a visitor id shows while one runs. */
export const controlOf = (experiment: Pick<ExperimentItem, 'variants'>) => variantsOf(experiment)[0] as VariantInput;

/** The plans as the variant shows and sells them: its price, trial and visibility where it overrides them. */
export function plansInVariant(plans: PlanItem[], variant: VariantInput): PlanItem[] {
  const overrides = new Map(variant.plans.map((o) => [o.planId, o]));
  return plans.map((plan) => {
    const override = overrides.get(plan.planId);
    if (!override) return plan;
    return {
      ...plan,
      ...(override.basePrice !== undefined && !plan.isFree ? { basePrice: override.basePrice } : {}),
      ...(override.freemiumDay !== undefined ? { freemiumDay: override.freemiumDay } : {}),
      ...(override.isVisible !== undefined ? { isVisible: override.isVisible } : {}),
    };
  });
}

/** Which tally shard a counted thing goes to (shared/db/entities/experiment.ts). */
export function shardOf(ref: string, shards: number): number {
  return createHash('sha256').update(ref).digest().readUInt16BE(0) % shards;
}
