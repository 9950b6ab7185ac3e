import { setTimeout as sleep } from 'node:timers/promises';
import { db, type PricingService } from './service.ts';
import type { ProjectScope } from './types.ts';

type WriteBuilder = Parameters<PricingService['transaction']['write']>[0];
/** The entities a transaction builder is handed, and the actions it returns. */
export type TransactionEntities = Parameters<WriteBuilder>[0];
type Actions = ReturnType<WriteBuilder>;

export interface CancellationReason {
  code: string;
  item: Record<string, unknown> | null;
}

export type TransactionOutcome = { committed: true } | { committed: false; reasons: CancellationReason[] };

/** TransactWriteItems takes at most 100 actions. */
export const MAX_TRANSACTION_ITEMS = 100;

/**
 * Runs a write transaction. ElectroDB resolves (does not throw) when DynamoDB cancels one,
 * so the outcome is returned for the caller to read reason by reason. Cancellations caused
 * only by concurrent transactions on the same items (TransactionConflict) are retried with
 * jittered backoff; a failed condition is the caller's to interpret.
 */
export async function writeTransaction(build: WriteBuilder): Promise<TransactionOutcome> {
  for (let attempt = 0; ; attempt++) {
    const result = await db().transaction.write(build).go();
    if (!result.canceled) return { committed: true };
    const reasons = (result.data as Array<{ code?: string; item?: unknown }>).map((r) => ({
      code: r.code ?? 'None',
      item: (r.item ?? null) as Record<string, unknown> | null,
    }));
    const failedCondition = reasons.some((r) => r.code === 'ConditionalCheckFailed');
    const conflicted = reasons.some((r) => r.code === 'TransactionConflict');
    if (!failedCondition && conflicted && attempt < 8) {
      await sleep(Math.random() * Math.min(800, 20 * 2 ** attempt));
      continue;
    }
    if (!failedCondition) {
      throw new Error(`Transaction cancelled: ${reasons.map((r) => r.code).join(', ')}`);
    }
    return { committed: false, reasons };
  }
}

/** The positions of the actions whose condition failed, in order (none when committed). */
export function failedConditions(outcome: TransactionOutcome, from = 0): number[] {
  if (outcome.committed) return [];
  return outcome.reasons.flatMap((r, i) => (i >= from && r.code === 'ConditionalCheckFailed' ? [i - from] : []));
}

export type CountedWriteOutcome = 'committed' | 'project_gone' | 'limit_reached' | { failedAt: number[] };

export interface CountedWrite {
  /** The project written to: its share id tells it from a later project with the same slug. */
  scope: ProjectScope;
  counter: 'featureCount' | 'planCount';
  /** +1 for a create, -1 for a delete. */
  delta: 1 | -1;
  /** The per-project limit a create must stay under; deletes have none. */
  max?: number;
  /** The child item writes; `failedAt` counts positions in this list. */
  actions: (entities: TransactionEntities) => Actions;
}

/**
 * Creates or deletes children of a project and moves its count by `delta` in the same
 * transaction, so the denormalised count is exact and the limit holds under concurrent
 * creates. The project patch is refused once the project is deleted (its item is gone, or
 * marked `deletingAt` by an older delete) or its slug belongs to a newer project (another
 * share id), which is what keeps the project sweep from racing new children. Which condition failed comes
 * back as a tag: 'project_gone', 'limit_reached', or the positions of the failed actions.
 */
export async function countedWrite({
  scope,
  counter,
  delta,
  max,
  actions,
}: CountedWrite): Promise<CountedWriteOutcome> {
  const { shareId, ...key } = scope;
  const outcome = await writeTransaction((entities) => [
    entities.project
      .patch(key)
      .add({ [counter]: delta })
      .where((attributes, { notExists, eq, lt }) => {
        const open = `${notExists(attributes.deletingAt)} AND ${eq(attributes.shareId, shareId)}`;
        return max === undefined ? open : `${open} AND ${lt(attributes[counter], max)}`;
      })
      .commit({ response: 'all_old' }),
    ...actions(entities),
  ]);
  if (outcome.committed) return 'committed';
  if (outcome.reasons[0]?.code === 'ConditionalCheckFailed') {
    const project = outcome.reasons[0].item;
    return !project || project.deletingAt || project.shareId !== shareId ? 'project_gone' : 'limit_reached';
  }
  return { failedAt: failedConditions(outcome, 1) };
}
