import { countOnce, TALLY_SHARDS } from '#db/experiments.ts';
import type { ProjectPartition } from '#db/types.ts';
import type { Clock } from '../ports.ts';
import { loadSharedProject } from '../share/share.ts';
import { runningExperiment, shardOf, variantFor } from './assignment.ts';
import { admitView } from './view-limit.ts';

/**
 * Exact counts of an experiment (lifecycle.md §5): each visitor, checkout session and paid
 * subscription is counted once, by a marker created on the condition that it is absent in
 * the transaction that adds to its variant's tally (shared/db/experiments.ts). The tallies are
 * spread over TALLY_SHARDS items per variant by a hash of what is counted, so no single item
 * takes a busy page's every view.
 */

/**
 * A pricing page's view by a visitor: counted once per visitor and running experiment.
 * Without a running experiment nothing is counted and nothing written (the page must not
 * break over it); past the views' rate limits (view-limit.ts) nothing is counted either. An
 * unknown or inactive share id is a 404.
 */
export async function recordView(clock: Clock, shareId: string, visitor: string, caller: { clientAddress: string }) {
  const partition = await loadSharedProject(shareId);
  const experiment = runningExperiment(partition);
  if (!experiment) return;
  const { projectId } = partition.project;
  const shard = shardOf(`visitor:${visitor}`, TALLY_SHARDS);
  if (!(await admitView(clock, projectId, caller.clientAddress, shard))) return;
  const variant = variantFor(experiment, visitor);
  await countOnce(projectId, shard, experiment.experimentId, 'visitor', visitor, variant.key, { visitors: 1 });
}

/** A checkout session created in a variant: counted once, however often its request is resent. */
export async function countCheckout(
  partition: Pick<ProjectPartition, 'project'>,
  experimentId: number,
  variant: string,
  sessionId: string,
): Promise<void> {
  const shard = shardOf(`checkout:${sessionId}`, TALLY_SHARDS);
  await countOnce(partition.project.projectId, shard, experimentId, 'checkout', sessionId, variant, { checkouts: 1 });
}

/**
 * A subscription sold in a variant that Stripe shows paid (`active` or `past_due`): counted
 * once with its monthly price, whichever of its events (and however many redeliveries) first
 * shows it paid.
 */
export async function countPaidSubscription(
  projectId: number,
  experimentId: number,
  variant: string,
  stripeSubscriptionId: string,
  monthly: number,
): Promise<void> {
  const shard = shardOf(`subscription:${stripeSubscriptionId}`, TALLY_SHARDS);
  const add = { subscriptions: 1, mrr: Number(monthly.toFixed(6)) };
  await countOnce(projectId, shard, experimentId, 'subscription', stripeSubscriptionId, variant, add);
}
