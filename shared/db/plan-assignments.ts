// Assignments stored in their plan's item (docs/decisions.md, "Assignments in their plan"):
// one map entry each (featureId → { i, m, c }), so a plan with its assignments is one item and
// a whole project reads in few pages.
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { KEY_LAYOUT } from './entities/model.ts';
import type { AssignedEntries, AssignedEntry, PlanAssignment, PlanItem } from './entities/plan.ts';
import { ifConditionFails } from './errors.ts';
import { anything, type StoredItem } from './items.ts';
import { type PricedStep, pricedClauses } from './plan-versions.ts';
import { db, rawTable } from './service.ts';
import type { TransactionAction, TransactionEntities } from './transactions.ts';
import type { ProjectKey, ProjectScope } from './types.ts';

/** An assignment to write: the ids are allocated by the caller. */
export interface NewAssignment {
  featureId: number;
  multiplier: number;
  planFeatureId: number;
}

/** A feature an assignment names is gone (or was never in this project). */
export interface MissingFeature {
  missingFeatureId: number;
}

/** The plan's stored entries as assignments. */
export function assignmentsIn(plan: Pick<PlanItem, 'ownerId' | 'slug' | 'shareId' | 'planId' | 'assigned'>) {
  const { assigned } = plan;
  const read: PlanAssignment[] = [];
  if (!assigned) return read;
  for (const featureId in assigned) read.push(assignmentOf(plan, featureId, assigned[featureId] as AssignedEntry));
  return read;
}

type PlanScope = Pick<PlanItem, 'ownerId' | 'slug' | 'shareId' | 'planId'>;

/** One stored entry of a plan as the assignment it stands for. */
const assignmentOf = (
  { ownerId, slug, shareId, planId }: PlanScope,
  featureId: string,
  entry: Partial<AssignedEntry>,
): PlanAssignment =>
  ({
    ownerId,
    slug,
    shareId,
    planId,
    featureId: Number(featureId),
    planFeatureId: entry.i,
    multiplier: entry.m,
    createdAt: entry.c,
  }) as PlanAssignment;

/**
 * For the whole-project reads (GET project, plans and share, checkout, entitlements): every
 * plan item's stored map read straight from DynamoDB's AttributeValues into the assignments
 * it holds (no answer uses the map itself, so no entry is built twice), and the plan items
 * handed on without it. Values are read as the item reader reads them (shared/db/items.ts);
 * an entry of another shape is read whole first, as assignmentsIn would see it.
 */
export function takeStoredAssignments(items: StoredItem[]): { items: StoredItem[]; assignments: PlanAssignment[] } {
  const assignments: PlanAssignment[] = [];
  const rest: StoredItem[] = [];
  for (const item of items) {
    const map = item.assigned?.M;
    if (map === undefined || item.__edb_e__?.S !== 'plan' || item.__edb_v__?.S !== KEY_LAYOUT) {
      rest.push(item);
      continue;
    }
    const { assigned: _map, ...plan } = item;
    rest.push(plan);
    const value = (name: string) => anything(item[name] ?? { NULL: true });
    const scope = {
      ownerId: value('ownerId'),
      slug: value('slug'),
      shareId: value('shareId'),
      planId: value('planId'),
    };
    for (const featureId in map) {
      const stored = map[featureId] as AttributeValue;
      const { i, m, c } = stored.M ?? {};
      const entry =
        i && m && c
          ? { i: anything(i), m: anything(m), c: anything(c) }
          : ((anything(stored) ?? {}) as Partial<AssignedEntry>);
      assignments.push(assignmentOf(scope, featureId, entry));
    }
  }
  return { items: rest, assignments };
}

export const entryOf = (a: NewAssignment, createdAt: string): AssignedEntry => ({
  i: a.planFeatureId,
  m: a.multiplier,
  c: createdAt,
});

export const entriesOf = (assignments: NewAssignment[], createdAt: string): AssignedEntries =>
  Object.fromEntries(assignments.map((a) => [String(a.featureId), entryOf(a, createdAt)]));

/**
 * An UpdateItem of the plan's item (as a transaction action) that applies only while the plan
 * is there with the project's share id and has its map. Its version is left alone: a PUT of
 * the plan sets its own fields, so it never loses to writes of its assignments.
 */
function planUpdateParams(
  scope: ProjectScope,
  planId: number,
  own: { set?: string[]; remove?: string[]; condition: string[] },
  ownNames: Record<string, string>,
  ownValues: Record<string, unknown>,
  priced?: PricedStep,
) {
  const { shareId, ...key } = scope;
  const step = priced ? pricedClauses(priced) : undefined;
  const set = [...(own.set ?? []), ...(step?.set ?? [])];
  const clauses = set.length ? [`SET ${set.join(', ')}`] : [];
  if (own.remove?.length) clauses.push(`REMOVE ${own.remove.join(', ')}`);
  const condition = [...own.condition, ...(step?.condition ?? [])];
  return {
    Update: {
      ...planItemKey(key, planId),
      UpdateExpression: clauses.join(' '),
      ConditionExpression: ['attribute_exists(#assigned)', '#shareId = :shareId', ...condition].join(' AND '),
      ExpressionAttributeNames: { '#assigned': 'assigned', '#shareId': 'shareId', ...ownNames, ...step?.names },
      ExpressionAttributeValues: { ':shareId': shareId, ...ownValues, ...step?.values },
    },
  };
}

/** The plan item's table and key, as ElectroDB builds them. */
export const planItemKey = (key: ProjectKey, planId: number) =>
  db()
    .entities.plan.get({ ...key, planId })
    .params() as { Key: { pk: string; sk: string }; TableName: string };

/** planUpdateParams as a transaction action (raw params: ElectroDB cannot name map entries of an `any`). */
const planUpdate = (...args: Parameters<typeof planUpdateParams>) =>
  planUpdateParams(...args) as unknown as TransactionAction;

/**
 * A plan's version step alone, for a write elsewhere that changes the plan's priced content
 * (a feature's limit fields, a feature's delete): the plan item changes nothing else.
 */
export const bumpPlan = (scope: ProjectScope, planId: number, step: PricedStep) =>
  planUpdate(scope, planId, { condition: [] }, {}, {}, step);

/**
 * Adds entries to a plan while it has none of these features. At most ADD_BATCH at once: the
 * condition names each, and DynamoDB takes 4 KB.
 */
export function addEntries(
  scope: ProjectScope,
  planId: number,
  assignments: NewAssignment[],
  createdAt: string,
  priced?: PricedStep,
) {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const set: string[] = [];
  const condition: string[] = [];
  assignments.forEach((a, n) => {
    names[`#f${n}`] = String(a.featureId);
    values[`:e${n}`] = entryOf(a, createdAt);
    set.push(`#assigned.#f${n} = :e${n}`);
    condition.push(`attribute_not_exists(#assigned.#f${n})`);
  });
  return planUpdate(scope, planId, { set, condition }, names, values, priced);
}

/** How many entries one add writes at most (its condition names each: DynamoDB takes 4 KB). */
export const ADD_BATCH = 48;

/**
 * Sets one entry's multiplier, or removes the entry (null), while it is the assignment read
 * (its planFeatureId) with the multiplier read: an entry of the same feature removed and
 * assigned again since (a new planFeatureId) is not the one read, and its write is stale.
 */
export function writeEntry(
  scope: ProjectScope,
  planId: number,
  read: { featureId: number; planFeatureId: number; multiplier: number },
  multiplier: number | null,
  priced?: PricedStep,
) {
  const condition = ['#assigned.#f.#i = :id', '#assigned.#f.#m = :read'];
  return planUpdate(
    scope,
    planId,
    multiplier === null
      ? { remove: ['#assigned.#f'], condition }
      : { set: ['#assigned.#f.#m = :multiplier'], condition },
    { '#f': String(read.featureId), '#i': 'i', '#m': 'm' },
    {
      ':id': read.planFeatureId,
      ':read': read.multiplier,
      ...(multiplier === null ? {} : { ':multiplier': multiplier }),
    },
    priced,
  );
}

/**
 * The check every write that assigns features makes beside its entries: the project's feature
 * head still counts the feature deletes it counted when the features were read. A feature
 * delete adds 1 to it in its own transaction, so an assignment of a feature read before its
 * delete cannot commit after it: one check for any number of features.
 */
export function featuresUnchanged(entities: TransactionEntities, scope: ProjectScope, featureDeletes: number) {
  const { shareId, ...key } = scope;
  return entities.featureHead
    .check(key)
    .where(
      (attributes, { exists, eq }) =>
        `${exists(attributes.projectId)} AND ${eq(attributes.shareId, shareId)} AND ${eq(attributes.featureDeletes, featureDeletes)}`,
    )
    .commit();
}

/** The feature delete's part of its transaction: it counts on the head (see featuresUnchanged). */
export function countFeatureDelete(entities: TransactionEntities, scope: ProjectScope) {
  const { shareId, ...key } = scope;
  return entities.featureHead
    .patch(key)
    .add({ featureDeletes: 1 })
    .where((attributes, { eq }) => eq(attributes.shareId, shareId))
    .commit();
}

/**
 * Removes features' entries from a plan's item, outside any transaction: the sweep of a
 * deleted feature (any entry of it), and the undo of an add cut short (`only`: the entries it
 * wrote, as it wrote them, so one another request has changed since, or removed and assigned
 * again, stays with the change-log entries that record it). Nothing when the plan is gone or
 * holds none of them (a plan is never created by it). At most ADD_BATCH at once: the
 * expressions name each. Answers the features whose entries it removed (or found absent,
 * without `only`).
 */
export async function removeEntries(
  scope: ProjectScope,
  planId: number,
  featureIds: number[],
  only?: Map<number, AssignedEntry>,
): Promise<number[]> {
  const removed: number[] = [];
  for (let from = 0; from < featureIds.length; from += ADD_BATCH) {
    const batch = featureIds.slice(from, from + ADD_BATCH);
    if (await removeBatch(scope, planId, batch, only)) removed.push(...batch);
    // One of them is not the entry this call wrote: each on its own condition.
    else if (only && batch.length > 1) {
      for (const featureId of batch) {
        if (await removeBatch(scope, planId, [featureId], only)) removed.push(featureId);
      }
    }
  }
  return removed;
}

/** One UpdateItem of removeEntries: false when its condition failed (nothing removed). */
async function removeBatch(
  scope: ProjectScope,
  planId: number,
  featureIds: number[],
  only: Map<number, AssignedEntry> | undefined,
): Promise<boolean> {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const condition: string[] = [];
  featureIds.forEach((featureId, n) => {
    names[`#f${n}`] = String(featureId);
    const entry = only?.get(featureId);
    if (entry) {
      Object.assign(names, { '#i': 'i', '#m': 'm' });
      Object.assign(values, { [`:i${n}`]: entry.i, [`:m${n}`]: entry.m });
      condition.push(`#assigned.#f${n}.#i = :i${n} AND #assigned.#f${n}.#m = :m${n}`);
    }
  });
  const remove = featureIds.map((_, n) => `#assigned.#f${n}`);
  const { Update } = planUpdateParams(scope, planId, { remove, condition }, names, values);
  return (await ifConditionFails(rawTable().client.send(new UpdateCommand(Update)), 'changed')) !== 'changed';
}
