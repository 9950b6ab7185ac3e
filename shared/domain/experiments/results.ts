import { readTallies } from '#db/experiments.ts';
import type { ProjectKey } from '#db/types.ts';
import { loadProject } from '../projects/load.ts';
import { variantsOf } from './assignment.ts';
import { findExperiment } from './experiments.ts';
import type { ResultsView } from './schemas.ts';
import { probabilityBest, wilsonInterval } from './stats.ts';

/** Sums of floats are shown to 10 significant digits, the rest is noise of binary fractions. */
const tidy = (value: number) => Number(value.toPrecision(10));

/**
 * `GET …/experiments/{id}/results`: each variant's exact counts (the sum of its tally shards),
 * its conversion (paid subscriptions / distinct visitors) with a 95% Wilson interval, its MRR
 * and MRR per visitor, and the posterior probability that it converts best.
 */
export async function getResults(key: ProjectKey, experimentId: number): Promise<ResultsView> {
  const partition = await loadProject(key);
  const experiment = findExperiment(partition, experimentId);
  const keys = variantsOf(experiment).map((variant) => variant.key);
  const tallies = await readTallies(partition.project.projectId, experimentId, keys);
  const totals = new Map(keys.map((k) => [k, { visitors: 0, checkouts: 0, subscriptions: 0, mrr: 0 }]));
  for (const tally of tallies) {
    const total = totals.get(tally.variant);
    if (!total) continue;
    for (const count of ['visitors', 'checkouts', 'subscriptions', 'mrr'] as const) total[count] += tally[count] ?? 0;
  }
  const variants = [...totals].map(([variant, t]) => {
    const [low, high] = wilsonInterval(t.subscriptions, t.visitors);
    return {
      key: variant,
      visitors: t.visitors,
      checkouts: t.checkouts,
      subscriptions: t.subscriptions,
      conversion: t.visitors > 0 ? t.subscriptions / t.visitors : 0,
      conversionLow: low,
      conversionHigh: high,
      mrr: tidy(t.mrr),
      mrrPerVisitor: t.visitors > 0 ? tidy(t.mrr / t.visitors) : 0,
    };
  });
  const best = probabilityBest(variants.map((v) => ({ successes: v.subscriptions, trials: v.visitors })));
  return { variants, probabilityBest: Object.fromEntries(keys.map((k, i) => [k, best[i] as number])) };
}
