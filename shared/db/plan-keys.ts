// Where a plan's item is stored. Plans are keyed under their assignments' prefix
// (`$projectData#planFeature_1#planId_<id>`, entities/plan.ts), so one Query reads a plan with
// its assignments; plans stored before that sit at their own old prefix until their first
// write moves them (docs/decisions.md, "Reads of a part").
import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { chunk } from './batch.ts';
import { LEGACY_PLAN_PREFIX, legacyPlanSortKey } from './entities/plan.ts';
import { collectionItems, itemsOf } from './items.ts';
import { assignmentsIn } from './plan-assignments.ts';
import { queryAll } from './raw-query.ts';
import { db, rawTable } from './service.ts';
import type { PlanFeatureItem, PlanItem, ProjectKey } from './types.ts';

/**
 * Where a plan's item was read: 'prefix', leading its assignments' key prefix (every plan
 * written since the layout changed), or 'legacy', at its old key. A writer addresses the item
 * where it read it; a missing plan is 'prefix' (a create would put it there).
 */
export type PlanLayout = 'prefix' | 'legacy';

export interface StoredPlan {
  plan: PlanItem | undefined;
  layout: PlanLayout;
  /** The plan's assignments: those in its item, then its assignment items (stored before). */
  assignments: PlanFeatureItem[];
}

/** The plan's key prefix, read in one strongly consistent Query: the plan leads its assignments. */
async function readPrefix(key: ProjectKey, planId: number) {
  const { plan, planFeature } = db().entities;
  const { Key, TableName } = plan.get({ ...key, planId }).params() as {
    Key: { pk: string; sk: string };
    TableName: string;
  };
  const items = await queryAll({
    TableName,
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :sk)',
    ExpressionAttributeValues: { ':pk': { S: Key.pk }, ':sk': { S: Key.sk } },
    ConsistentRead: true,
  });
  const read = collectionItems({ plan, planFeature }, items);
  const [found] = read.plan.filter((item) => item.planId === planId);
  return { TableName, plan: found, assignments: read.planFeature.filter((item) => item.planId === planId) };
}

type PlanKey = ProjectKey & { planId: number };

/** The plan item's table and key where `layout` says it is. */
export function planItemKey(key: ProjectKey, planId: number, layout: PlanLayout) {
  const { Key, TableName } = db()
    .entities.plan.get({ ...key, planId })
    .params() as { Key: { pk: string; sk: string }; TableName: string };
  return { TableName, Key: layout === 'prefix' ? Key : { pk: Key.pk, sk: legacyPlanSortKey(planId) } };
}

/** The table key a plan had before it moved under its assignments' prefix. */
const legacyKeyOf = ({ planId, ...key }: PlanKey) => planItemKey(key, planId, 'legacy').Key;

/**
 * The plan and its assignments in one strongly consistent Query of the plan's key prefix. A
 * plan not found there is looked up at its old key (one GetItem: only plans not yet moved,
 * and missing ones, pay for it); when it is not there either, a write may have moved it
 * between the two reads (moves go one way), so the prefix is read once more before the plan
 * counts as missing. Items of any share id: the caller keeps its project's own.
 */
export async function readStoredPlan(key: ProjectKey, planId: number): Promise<StoredPlan> {
  const { TableName, plan, assignments } = await readPrefix(key, planId);
  if (plan) return { plan, layout: 'prefix', assignments: [...assignmentsIn(plan), ...assignments] };
  const old = legacyKeyOf({ ...key, planId });
  const { Item } = await rawTable().lowLevel.send(
    new GetItemCommand({ TableName, Key: { pk: { S: old.pk }, sk: { S: old.sk } }, ConsistentRead: true }),
  );
  const [legacy] = Item ? itemsOf(db().entities.plan, [Item]) : [];
  if (legacy) return { plan: legacy, layout: 'legacy', assignments: [...assignmentsIn(legacy), ...assignments] };
  const again = await readPrefix(key, planId);
  const found = again.plan ? assignmentsIn(again.plan) : [];
  return { plan: again.plan, layout: 'prefix', assignments: [...found, ...again.assignments] };
}

/**
 * The plans of a project's partition still at their old keys, in id order: one strongly
 * consistent Query of the old plans' prefix (a page per MB), which no plan written since the
 * layout changed is under. Items of any share id: the caller keeps its project's own. For the
 * one-off migration (shared/domain/projects/migrate-plans.ts), not for requests.
 */
export async function readLegacyPlans(key: ProjectKey): Promise<PlanItem[]> {
  const { pk } = legacyKeyOf({ ...key, planId: 0 });
  const items = await queryAll({
    TableName: rawTable().table,
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :sk)',
    ExpressionAttributeValues: { ':pk': { S: pk }, ':sk': { S: LEGACY_PLAN_PREFIX } },
    ConsistentRead: true,
  });
  return itemsOf(db().entities.plan, items);
}

/** A plan's item as read among its project's plans, with where it was read. */
export interface PlanAt {
  plan: PlanItem;
  layout: PlanLayout;
}

/**
 * Every plan item of a project's partition (both layouts) and every assignment item (stored
 * before assignments moved into their plans), in one strongly consistent Query of the sort
 * keys that begin with `$projectData#plan`: the old plans' prefix, the plans' and their
 * assignments'. A page per MB: for a feature delete's sweep and the one-off migration, never
 * for an answer. Items of any share id: the caller keeps its project's own.
 */
export async function readPlansAndAssignmentItems(
  key: ProjectKey,
): Promise<{ plans: PlanAt[]; assignmentItems: PlanFeatureItem[] }> {
  const { pk } = legacyKeyOf({ ...key, planId: 0 });
  const stored = await queryAll({
    TableName: rawTable().table,
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :plans)',
    ExpressionAttributeValues: { ':pk': { S: pk }, ':plans': { S: '$projectData#plan' } },
    ConsistentRead: true,
  });
  const { plan, planFeature } = db().entities;
  const plans = stored.flatMap((raw): PlanAt[] =>
    itemsOf(plan, [raw]).map((read) => ({
      plan: read,
      layout: raw.sk?.S?.startsWith(LEGACY_PLAN_PREFIX) ? 'legacy' : 'prefix',
    })),
  );
  return { plans, assignmentItems: itemsOf(planFeature, stored) };
}

/**
 * A transaction action ElectroDB built for the plan's item (its keys are the new layout's),
 * aimed at where the item was read: for a 'legacy' plan, its old key.
 */
export function atPlanKey<A extends object>(action: A, planId: number, layout: PlanLayout): A {
  if (layout === 'prefix') return action;
  const [kind, params] = Object.entries(action)[0] as [string, { Key: Record<string, unknown> }];
  return { [kind]: { ...params, Key: { ...params.Key, sk: legacyPlanSortKey(planId) } } } as A;
}

/**
 * Plans' items at their old keys, for deleteAll (shared/db/batch.ts): the project sweep reads
 * a plan item without its key, so it deletes both of the plan's keys (one of them holds
 * nothing, which a batch delete takes as done).
 */
export const legacyPlanItems = {
  delete: (keys: PlanKey[]) => ({
    go: async (): Promise<{ unprocessed: PlanKey[] }> => {
      const { client, table } = rawTable();
      const unprocessed: PlanKey[] = [];
      for (const batch of chunk(keys, 25)) {
        const bySortKey = new Map(batch.map((key) => [legacyPlanSortKey(key.planId), key]));
        const RequestItems = { [table]: batch.map((key) => ({ DeleteRequest: { Key: legacyKeyOf(key) } })) };
        const { UnprocessedItems } = await client.send(new BatchWriteCommand({ RequestItems }));
        for (const left of UnprocessedItems?.[table] ?? []) {
          unprocessed.push(bySortKey.get(left.DeleteRequest?.Key?.sk) as PlanKey);
        }
      }
      return { unprocessed };
    },
  }),
};
