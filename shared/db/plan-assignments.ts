// Assignments stored in their plan's item (docs/decisions.md, "Assignments in their plan").
// An assignment item carries its keys, the project's owner, slug and share id and ElectroDB's
// markers: about 490 bytes, of which its own data (ids, multiplier, date) is some 45. A plan
// of 200 features kept its assignments in 200 such items, so a whole-project read paged every
// ~2,000 assignments. In the plan item they are one map entry each (featureId → { i, m, c }),
// about 10 KB for a full plan, and a project of 20,000 assignments reads in one page (the
// scale table of `npm run bench`).
//
// Assignment items written before stay where they are until the operator's `migrate plans`
// folds them into their plan (plans.ts, foldAssignmentItems), and are read beside the entries
// (a plan's assignments are both); nothing writes new ones. A feature is never both: every
// writer skips a feature the plan already has in either form, and the fold moves an item in
// the transaction that deletes it.
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { KEY_LAYOUT } from './entities/model.ts';
import type { AssignedEntries, AssignedEntry } from './entities/plan.ts';
import { anything, type StoredItem } from './items.ts';
import { type PlanLayout, planItemKey } from './plan-keys.ts';
import { rawTable } from './service.ts';
import type { TransactionAction, TransactionEntities } from './transactions.ts';
import type { PlanFeatureItem, PlanItem, ProjectScope } from './types.ts';

/** An assignment to write: the ids are allocated by the caller. */
export interface NewAssignment {
  featureId: number;
  multiplier: number;
  planFeatureId: number;
  /** When it was assigned, if before this write: an assignment item folded into its plan keeps its date. */
  createdAt?: string;
}

/**
 * Whether the plan holds this feature's assignment in its item (else, if assigned at all, it is
 * an item of its own, stored before): where a write of the assignment goes.
 */
export const storedInPlan = (plan: Pick<PlanItem, 'assigned'>, featureId: number): boolean =>
  plan.assigned?.[String(featureId)] !== undefined;

/** The plan's stored entries as assignment items read them. */
export function assignmentsIn(plan: Pick<PlanItem, 'ownerId' | 'slug' | 'shareId' | 'planId' | 'assigned'>) {
  const { assigned } = plan;
  const read: PlanFeatureItem[] = [];
  if (!assigned) return read;
  for (const featureId in assigned) read.push(assignmentOf(plan, featureId, assigned[featureId] as AssignedEntry));
  return read;
}

type PlanScope = Pick<PlanItem, 'ownerId' | 'slug' | 'shareId' | 'planId'>;

/** One stored entry of a plan as the assignment item it stands for. */
const assignmentOf = (
  { ownerId, slug, shareId, planId }: PlanScope,
  featureId: string,
  entry: Partial<AssignedEntry>,
): PlanFeatureItem =>
  ({
    ownerId,
    slug,
    shareId,
    planId,
    featureId: Number(featureId),
    planFeatureId: entry.i,
    multiplier: entry.m,
    createdAt: entry.c,
  }) as PlanFeatureItem;

/**
 * For the whole-project reads (GET project, plans and share, checkout, entitlements): every
 * plan item's stored map read straight from DynamoDB's AttributeValues into the assignments
 * it holds, and the plan items handed on without it. No answer of those reads uses a plan's
 * map itself, and reading it into a map first and into assignments then made every entry
 * twice (most of what a warm read of a 1,000-assignment project spent beyond a bare Query).
 * Values are read as the item reader reads them (shared/db/items.ts); an entry of another
 * shape is read whole first, as assignmentsIn would see it.
 */
export function takeStoredAssignments(items: StoredItem[]): { items: StoredItem[]; assignments: PlanFeatureItem[] } {
  const assignments: PlanFeatureItem[] = [];
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
  c: a.createdAt ?? createdAt,
});

export const entriesOf = (assignments: NewAssignment[], createdAt: string): AssignedEntries =>
  Object.fromEntries(assignments.map((a) => [String(a.featureId), entryOf(a, createdAt)]));

/**
 * An UpdateItem of the plan's item (as a transaction action) that applies only while the plan
 * is there with the project's share id. At the plan's old key it also adds 1 to its version:
 * the move of such a plan (a PUT's, or `migrate plans`') copies the whole item as it read it,
 * on the condition that its version is still the one read, so a move that read the plan
 * before this write is stale and reads again, and never writes the assignments back as they
 * were. At the new key nothing copies the item (a PUT sets its own fields), so its version
 * is left alone: a PUT of the plan never loses to writes of its assignments.
 */
function planUpdateParams(
  scope: ProjectScope,
  planId: number,
  layout: PlanLayout,
  update: { set?: string[]; remove?: string[]; condition: string[] },
  names: Record<string, string>,
  values: Record<string, unknown>,
) {
  const { shareId, ...key } = scope;
  const moves = layout === 'legacy';
  const set = [...(update.set ?? []), ...(moves ? ['#version = if_not_exists(#version, :zero) + :one'] : [])];
  const clauses = set.length > 0 ? [`SET ${set.join(', ')}`] : [];
  if (update.remove?.length) clauses.push(`REMOVE ${update.remove.join(', ')}`);
  return {
    Update: {
      ...planItemKey(key, planId, layout),
      UpdateExpression: clauses.join(' '),
      ConditionExpression: ['attribute_exists(#planId)', '#shareId = :shareId', ...update.condition].join(' AND '),
      ExpressionAttributeNames: {
        '#planId': 'planId',
        '#shareId': 'shareId',
        ...(moves ? { '#version': 'version' } : {}),
        ...names,
      },
      ExpressionAttributeValues: { ':shareId': shareId, ...(moves ? { ':zero': 0, ':one': 1 } : {}), ...values },
    },
  };
}

/** planUpdateParams as a transaction action: raw params, as atPlanKey (plan-keys.ts) makes them. */
const planUpdate = (...args: Parameters<typeof planUpdateParams>) =>
  planUpdateParams(...args) as unknown as TransactionAction;

/**
 * Adds entries to a plan while it has none of these features: the first ones of a plan that
 * has no map yet (written before assignments moved in) set the map whole, while it still has
 * none. At most ADD_BATCH at once: the condition names each feature, and DynamoDB takes 4 KB.
 */
export function addEntries(
  scope: ProjectScope,
  planId: number,
  layout: PlanLayout,
  hasMap: boolean,
  assignments: NewAssignment[],
  createdAt: string,
) {
  if (!hasMap) {
    return planUpdate(
      scope,
      planId,
      layout,
      { set: ['#assigned = :entries'], condition: ['attribute_not_exists(#assigned)'] },
      { '#assigned': 'assigned' },
      { ':entries': entriesOf(assignments, createdAt) },
    );
  }
  const names: Record<string, string> = { '#assigned': 'assigned' };
  const values: Record<string, unknown> = {};
  const set: string[] = [];
  const condition = ['attribute_exists(#assigned)'];
  assignments.forEach((a, n) => {
    names[`#f${n}`] = String(a.featureId);
    values[`:e${n}`] = entryOf(a, createdAt);
    set.push(`#assigned.#f${n} = :e${n}`);
    condition.push(`attribute_not_exists(#assigned.#f${n})`);
  });
  return planUpdate(scope, planId, layout, { set, condition }, names, values);
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
  layout: PlanLayout,
  read: { featureId: number; planFeatureId: number; multiplier: number },
  multiplier: number | null,
) {
  const condition = ['#assigned.#f.#i = :id', '#assigned.#f.#m = :read'];
  return planUpdate(
    scope,
    planId,
    layout,
    multiplier === null
      ? { remove: ['#assigned.#f'], condition }
      : { set: ['#assigned.#f.#m = :multiplier'], condition },
    { '#assigned': 'assigned', '#f': String(read.featureId), '#i': 'i', '#m': 'm' },
    {
      ':id': read.planFeatureId,
      ':read': read.multiplier,
      ...(multiplier === null ? {} : { ':multiplier': multiplier }),
    },
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
      (attributes, { exists, eq, notExists }) =>
        `${exists(attributes.projectId)} AND ${eq(attributes.shareId, shareId)} AND ${
          featureDeletes === 0 ? notExists(attributes.featureDeletes) : eq(attributes.featureDeletes, featureDeletes)
        }`,
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
  layout: PlanLayout,
  featureIds: number[],
  only?: Map<number, AssignedEntry>,
): Promise<number[]> {
  const removed: number[] = [];
  for (let from = 0; from < featureIds.length; from += ADD_BATCH) {
    const batch = featureIds.slice(from, from + ADD_BATCH);
    if (await removeBatch(scope, planId, layout, batch, only)) removed.push(...batch);
    // One of them is not the entry this call wrote: each on its own condition.
    else if (only && batch.length > 1) {
      for (const featureId of batch) {
        if (await removeBatch(scope, planId, layout, [featureId], only)) removed.push(featureId);
      }
    }
  }
  return removed;
}

/** One UpdateItem of removeEntries: false when its condition failed (nothing removed). */
async function removeBatch(
  scope: ProjectScope,
  planId: number,
  layout: PlanLayout,
  featureIds: number[],
  only: Map<number, AssignedEntry> | undefined,
): Promise<boolean> {
  const names: Record<string, string> = { '#assigned': 'assigned' };
  const values: Record<string, unknown> = {};
  const condition = ['attribute_exists(#assigned)'];
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
  const { Update } = planUpdateParams(scope, planId, layout, { remove, condition }, names, values);
  try {
    await rawTable().client.send(new UpdateCommand(Update));
    return true;
  } catch (error) {
    if ((error as { name?: string }).name !== 'ConditionalCheckFailedException') throw error;
    return false;
  }
}
