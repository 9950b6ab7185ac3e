// A project's pricing experiments: the experiment items in its partition, the one running
// slot, and the exact counts (markers and sharded tallies) outside it.

import { deleteEveryPage, getEvery } from './batch.ts';
import type { NewChangeEntryItem } from './changes.ts';
import {
  type ExperimentItem,
  type ExperimentTallyItem,
  type NewExperimentItem,
  TALLY_SHARDS,
} from './entities/experiment.ts';
import { db } from './service.ts';
import { projectIsLive, writeTransaction } from './transactions.ts';
import type { ProjectScope } from './types.ts';

export type { ExperimentItem, ExperimentTallyItem, NewExperimentItem };
export { TALLY_SHARDS };

type Failure = 'project_gone' | 'not_found' | 'wrong_status' | 'slot_taken';

const keyOf = ({ ownerId, slug }: ProjectScope, experimentId: number) => ({ ownerId, slug, experimentId });

/** Creates a draft with its change-log entry, while the project is there. */
export async function insertExperiment(
  scope: ProjectScope,
  item: NewExperimentItem,
  change: NewChangeEntryItem,
): Promise<'created' | 'project_gone'> {
  const outcome = await writeTransaction(
    (entities) => [projectIsLive(entities, scope), entities.experiment.create(item).commit()],
    [change],
  );
  return outcome.committed ? 'created' : 'project_gone';
}

/** What a failed transaction's reasons say, in the order its actions were listed. */
function failure(reasons: { code: string }[], meanings: Failure[]): Failure {
  const at = reasons.findIndex((r) => r.code === 'ConditionalCheckFailed');
  return meanings[at] ?? 'wrong_status';
}

/** Changes a draft (and only a draft) of this project. */
export async function updateDraft(
  scope: ProjectScope,
  experimentId: number,
  set: Partial<Pick<ExperimentItem, 'name' | 'variants'>> & { updatedAt: string },
  change: NewChangeEntryItem,
): Promise<'updated' | Failure> {
  const outcome = await writeTransaction(
    (entities) => [
      projectIsLive(entities, scope),
      entities.experiment
        .patch(keyOf(scope, experimentId))
        .set(set)
        .where((a, { eq }) => `${eq(a.shareId, scope.shareId)} AND ${eq(a.status, 'draft')}`)
        .commit(),
    ],
    [change],
  );
  return outcome.committed ? 'updated' : failure(outcome.reasons, ['project_gone', 'wrong_status']);
}

/** Every tally key of an experiment: one per variant and shard. */
const tallyKeys = (projectId: number, experimentId: number, variants: string[]) =>
  variants.flatMap((variant) =>
    Array.from({ length: TALLY_SHARDS }, (_, tallyShard) => ({ projectId, tallyShard, experimentId, variant })),
  );

/**
 * Starts a draft: takes the project's running slot (absent, else 'slot_taken') and moves the
 * draft to running, in one transaction with its change-log entry. The same transaction
 * creates the experiment's tallies at zero (4 variants × 16 shards and the rest stay under
 * TransactWriteItems' 100 actions): a count only adds to a tally that exists, so once the
 * project's sweep has deleted them no late count can write anything of the project again.
 */
export async function startExperimentItem(
  scope: ProjectScope,
  projectId: number,
  experimentId: number,
  variants: string[],
  at: string,
  change: NewChangeEntryItem,
): Promise<'started' | Failure> {
  const zero = { visitors: 0, checkouts: 0, subscriptions: 0, mrr: 0 };
  const outcome = await writeTransaction(
    (entities) => [
      projectIsLive(entities, scope),
      entities.experimentSlot.create({ ...scope, experimentId }).commit(),
      entities.experiment
        .patch(keyOf(scope, experimentId))
        .set({ status: 'running', startedAt: at, updatedAt: at })
        .where((a, { eq }) => `${eq(a.shareId, scope.shareId)} AND ${eq(a.status, 'draft')}`)
        .commit(),
      ...tallyKeys(projectId, experimentId, variants).map((key) =>
        entities.experimentTally.put({ ...key, ...zero }).commit(),
      ),
    ],
    [change],
  );
  return outcome.committed ? 'started' : failure(outcome.reasons, ['project_gone', 'slot_taken', 'wrong_status']);
}

/** Stops a running experiment and frees the project's slot, with its change-log entry. */
export async function stopExperimentItem(
  scope: ProjectScope,
  experimentId: number,
  at: string,
  change: NewChangeEntryItem,
): Promise<'stopped' | Failure> {
  const { ownerId, slug } = scope;
  const outcome = await writeTransaction(
    (entities) => [
      entities.experimentSlot
        .delete({ ownerId, slug })
        .where((a, { eq }) => `${eq(a.shareId, scope.shareId)} AND ${eq(a.experimentId, experimentId)}`)
        .commit(),
      entities.experiment
        .patch(keyOf(scope, experimentId))
        .set({ status: 'stopped', stoppedAt: at, updatedAt: at })
        .where((a, { eq }) => `${eq(a.shareId, scope.shareId)} AND ${eq(a.status, 'running')}`)
        .commit(),
    ],
    [change],
  );
  return outcome.committed ? 'stopped' : failure(outcome.reasons, ['wrong_status', 'wrong_status']);
}

export type CountKind = 'visitor' | 'checkout' | 'subscription';

/** What one counted thing adds to its variant's tally. */
export type TallyAdd = Partial<Record<'visitors' | 'checkouts' | 'subscriptions' | 'mrr', number>>;

/**
 * Counts `ref` once for the experiment: its marker is created on the condition that it is
 * absent, in the transaction that adds to the tally of its shard, on the condition that the
 * tally exists (the start made it; a deleted project's sweep removed it). 'already' when it
 * was counted before (by this request's earlier try, a resend, or a concurrent one), or
 * when the project is gone: then the transaction writes nothing.
 */
export async function countOnce(
  projectId: number,
  tallyShard: number,
  experimentId: number,
  kind: CountKind,
  ref: string,
  variant: string,
  add: TallyAdd,
): Promise<'counted' | 'already'> {
  const outcome = await writeTransaction((entities) => [
    entities.experimentMark.create({ projectId, tallyShard, experimentId, kind, ref, variant }).commit(),
    entities.experimentTally.patch({ projectId, tallyShard, experimentId, variant }).add(add).commit(),
  ]);
  return outcome.committed ? 'counted' : 'already';
}

/** Every shard's tally of the experiment's variants: one BatchGetItem of known keys. */
export async function readTallies(
  projectId: number,
  experimentId: number,
  variants: string[],
): Promise<ExperimentTallyItem[]> {
  return getEvery(db().entities.experimentTally, tallyKeys(projectId, experimentId, variants));
}

/**
 * Deletes a deleted project's tallies, then its markers. Tallies first: a count commits only
 * while its tally exists, so a count racing the delete (it read the project before the
 * delete) either committed before its tally went, and the marker pass that follows finds its
 * marker, or it fails and writes nothing.
 */
export async function sweepExperimentCounts(projectId: number): Promise<void> {
  const { experimentMark, experimentTally } = db().entities;
  for (let tallyShard = 0; tallyShard < TALLY_SHARDS; tallyShard++) {
    await deleteEveryPage(experimentTally, (cursor) =>
      experimentTally.query.byShard({ projectId, tallyShard }).go({ cursor, consistent: true }),
    );
  }
  for (let tallyShard = 0; tallyShard < TALLY_SHARDS; tallyShard++) {
    await deleteEveryPage(experimentMark, (cursor) =>
      experimentMark.query.byShard({ projectId, tallyShard }).go({ cursor, consistent: true }),
    );
  }
}
