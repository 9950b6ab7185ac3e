import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { TransactWriteCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { type NewChangeEntryItem, renumberChanges } from './changes.ts';
import { BUSY, onlyTransient, retryWhileBusy, StorageBusyError } from './contention.ts';
import { unmarshallNumbers } from './numbers.ts';
import { db, type PricingService, rawTable } from './service.ts';
import type { ProjectScope } from './types.ts';

type WriteBuilder = Parameters<PricingService['transaction']['write']>[0];
/** The entities a transaction builder is handed, and the actions it returns. */
export type TransactionEntities = Parameters<WriteBuilder>[0];
type Actions = ReturnType<WriteBuilder>;
/** One action of a transaction, as ElectroDB's `.commit()` builds it (or one built as raw params). */
export type TransactionAction = Actions[number];

/** TransactWriteItems takes at most 100 actions. */
export const TRANSACTION_ITEMS = 100;

/** Why DynamoDB cancelled one action of a transaction, with the item as stored when asked for. */
export interface CancellationReason {
  code: string;
  item: Record<string, unknown> | null;
}

export type TransactionOutcome = { committed: true } | { committed: false; reasons: CancellationReason[] };

/** A transaction's attempts: conflicts with concurrent transactions back off between them. */
const TRANSACTION_ATTEMPTS = 9;

/**
 * Runs a write transaction. ElectroDB resolves (does not throw) when DynamoDB cancels one,
 * so the outcome is returned for the caller to read reason by reason. Cancellations caused
 * only by concurrent transactions on the same items (TransactionConflict) are retried with
 * backoff; a failed condition is the caller's to interpret. Conflicts (or throttling) that
 * outlast the retries are a StorageBusyError (a 503 with Retry-After): nothing was stored.
 *
 * `changes`, the write's change-log entries, are put after the builder's actions; when only
 * their condition fails (another writer of the project took an id in the same millisecond)
 * they get new ids and the transaction is sent again at once. The outcome's reasons cover
 * the builder's actions only.
 */
export async function writeTransaction(
  build: WriteBuilder,
  changes: NewChangeEntryItem[] = [],
): Promise<TransactionOutcome> {
  let renumbered = 0;
  return retryWhileBusy(
    async () => {
      for (;;) {
        const result = await db()
          .transaction.write((entities) => [
            ...build(entities),
            ...changes.map((entry) => entities.changeEntry.create(entry).commit()),
          ])
          .go();
        if (!result.canceled) return { committed: true } as const;
        const all = (result.data as Array<{ code?: string; item?: unknown }>).map((r) => ({
          code: r.code ?? 'None',
          item: (r.item ?? null) as Record<string, unknown> | null,
        }));
        const reasons = all.slice(0, all.length - changes.length);
        const failedCondition = reasons.some((r) => r.code === 'ConditionalCheckFailed');
        if (failedCondition) return { committed: false, reasons } as const;
        if (all.slice(reasons.length).some((r) => r.code === 'ConditionalCheckFailed')) {
          if (renumbered++ === 5) throw new StorageBusyError('Change-log ids taken 6 times in a row');
          renumberChanges(changes);
          continue;
        }
        if (onlyTransient(all.map((r) => r.code))) return BUSY;
        // Neither a failed condition nor only conflicts: no retry can help.
        throw new Error(`Transaction cancelled: ${all.map((r) => r.code).join(', ')}`);
      }
    },
    { attempts: TRANSACTION_ATTEMPTS, what: 'Transaction' },
  );
}

export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/**
 * Sends one TransactWriteItems built by hand (the writes whose expressions ElectroDB cannot
 * build, or builds too slowly for a batch of a thousand items), once: committed, or the
 * reasons of its cancellation, items as stored. Anything else DynamoDB answers is thrown.
 */
export async function sendTransaction(items: TransactItem[]): Promise<TransactionOutcome> {
  const { client } = rawTable();
  try {
    await client.send(new TransactWriteCommand({ TransactItems: items }));
    return { committed: true };
  } catch (error) {
    type Reason = { Code?: string; Item?: Record<string, AttributeValue> };
    const reasons = (error as { CancellationReasons?: Reason[] }).CancellationReasons;
    if ((error as Error).name !== 'TransactionCanceledException' || !reasons) throw error;
    return {
      committed: false,
      reasons: reasons.map((r) => ({
        code: r.Code ?? 'None',
        item: r.Item ? unmarshall(r.Item, unmarshallNumbers) : null,
      })),
    };
  }
}

/**
 * A transaction's check that the project is there with this share id, for a write that must
 * not outlive the project yet changes nothing of it (a counted write patches the project item
 * on the same condition instead). A delete takes the project item out in its own transaction,
 * so such a write commits before it or not at all: the sweep never meets an item behind it.
 */
export const projectIsLive = ({ project }: TransactionEntities, { shareId, ...key }: ProjectScope) =>
  project
    .check(key)
    .where((attributes, { eq }) => eq(attributes.shareId, shareId))
    .commit();

export type CountedWriteOutcome = 'committed' | 'project_gone' | 'limit_reached' | 'stale' | { failedAt: number[] };

export interface CountedWrite {
  /** The project written to: its share id tells it from a later project with the same slug. */
  scope: ProjectScope;
  /** The count a create or delete moves; none for an update. */
  counter?: 'featureCount' | 'planCount';
  /** +1 for a create, -1 for a delete. */
  delta?: 1 | -1;
  /** The per-project limit a create must stay under; deletes have none. */
  max?: number;
  /** The project's revision the caller read (If-Match): the write commits only while it is still that. */
  revision?: number | undefined;
  /** The child item writes; `failedAt` counts positions in this list. */
  actions: (entities: TransactionEntities) => Actions;
  /** The change-log entries of this write (usually one), put in the same transaction (after `actions`). */
  changes?: NewChangeEntryItem[];
}

/**
 * Every write inside a project goes through here: it writes the project item in the same
 * transaction as the children it creates, changes or deletes, and
 * - moves its count by `delta`, so the denormalised count is exact and the limit holds
 *   under concurrent creates;
 * - adds 1 to its `revision`, so a write guarded by the revision a reader saw (`revision`,
 *   If-Match) fails when anything in the project changed since;
 * - puts the write's change-log entry (`changes`), so an entry never lacks its write.
 * The project patch is refused once the project is deleted (its item is gone) or its slug
 * belongs to a newer project (another share id), which keeps the sweep from racing new
 * children. Which condition failed comes back as 'project_gone', 'stale', 'limit_reached', or
 * the positions of the failed actions.
 */
export async function countedWrite({
  scope,
  counter,
  delta,
  max,
  revision,
  actions,
  changes = [],
}: CountedWrite): Promise<CountedWriteOutcome> {
  const { shareId, ...key } = scope;
  const outcome = await writeTransaction(
    (entities) => [
      entities.project
        .patch(key)
        .add({ revision: 1, ...(counter && delta ? { [counter]: delta } : {}) })
        .where((attributes, { eq, lt }) => {
          const conditions = [eq(attributes.shareId, shareId)];
          if (counter && max !== undefined) conditions.push(lt(attributes[counter], max));
          if (revision !== undefined) conditions.push(eq(attributes.revision, revision));
          return conditions.join(' AND ');
        })
        .commit({ response: 'all_old' }),
      ...actions(entities),
    ],
    changes,
  );
  if (outcome.committed) return 'committed';
  if (outcome.reasons[0]?.code === 'ConditionalCheckFailed') {
    const project = outcome.reasons[0].item;
    if (!project || project.shareId !== shareId) return 'project_gone';
    if (revision !== undefined && project.revision !== revision) return 'stale';
    return 'limit_reached';
  }
  return { failedAt: outcome.reasons.flatMap((r, i) => (i > 0 && r.code === 'ConditionalCheckFailed' ? [i - 1] : [])) };
}
