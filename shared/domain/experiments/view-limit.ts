import { limits } from '#contract/limits.ts';
import { TALLY_SHARDS } from '#db/experiments.ts';
import { admitCall, type WindowLimit } from '#db/rate-limits.ts';
import type { Clock } from '../ports.ts';

const windowSeconds = limits.experimentViewWindowSeconds;
const perClient: WindowLimit = { limit: limits.experimentViewsPerClient, windowSeconds };
/**
 * The project's ceiling is split over one window per tally shard (a view goes to its
 * visitor's shard): a single window item would take every view of a busy page, the hot item
 * the sharded tallies avoid.
 */
const perProjectShard: WindowLimit = {
  limit: Math.ceil(limits.experimentViewsPerProject / TALLY_SHARDS),
  windowSeconds,
};

/** Views count in windows of their own: a flood of views never uses up a client's checkouts. */
const clientScope = (address: string) => `views#client#${address.toLowerCase()}`;
const shardScope = (shard: number) => `views#shard#${shard}`;

/**
 * Whether a view may be counted, by the rate-limit windows the public payment calls use
 * (shared/db/rate-limits.ts): first the client address's window on this project, then the
 * project's window of the visitor's shard. A client past its limit is refused before the
 * project's window counts it, so one client cannot use up a page's views. Refused: the
 * caller counts nothing and still answers 204, so the write cost of a flood is bounded and
 * no page breaks over it.
 */
export async function admitView(clock: Clock, projectId: number, clientAddress: string, shard: number) {
  const now = () => clock.now();
  if ((await admitCall({ projectId, scope: clientScope(clientAddress) }, now, perClient)) !== 'admitted') return false;
  return (await admitCall({ projectId, scope: shardScope(shard) }, now, perProjectShard)) === 'admitted';
}
