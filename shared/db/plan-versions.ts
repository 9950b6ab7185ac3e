import { deleteEveryPage } from './batch.ts';
import type { NewPlanVersionItem, PlanVersionItem } from './entities/plan-version.ts';
import { db } from './service.ts';
import type { TransactionAction, TransactionEntities } from './transactions.ts';
import { type NewWebhookEventItem, putEvent } from './webhook-deliveries.ts';

export type { NewPlanVersionItem, PlanVersionItem };

/** One stored version of a plan (one GetItem), or undefined when none is stored. */
export async function getPlanVersion(
  projectId: number,
  planId: number,
  version: number,
): Promise<PlanVersionItem | undefined> {
  const { data } = await db().entities.planVersion.get({ projectId, planId, version }).go();
  return data ?? undefined;
}

/** Every stored version of a plan, oldest first: one Query (a page holds hundreds of versions). */
export async function listPlanVersions(projectId: number, planId: number): Promise<PlanVersionItem[]> {
  const { data } = await db().entities.planVersion.query.byPlan({ projectId, planId }).go({ pages: 'all' });
  return data;
}

/**
 * The transaction action that freezes a superseded version, for the priced write that
 * supersedes it (one more item of the same transaction, no round trip of its own). Only the
 * writer that moved the plan from this version can commit it (it is conditioned on the
 * plan's version), so a plain put never replaces another content.
 */
export const freezeVersion = (entities: TransactionEntities, item: NewPlanVersionItem): TransactionAction =>
  entities.planVersion.put(item).commit();

/** A priced step's own actions: the superseded version frozen, and the new version's outbox event. */
export const stepActions = (entities: TransactionEntities, step: PricedStep): TransactionAction[] => [
  freezeVersion(entities, step.frozen),
  ...(step.event ? [putEvent(entities, step.event)] : []),
];

/** Deletes every stored version of a deleted project's plans: a Query per page of keys and batch deletes. */
export async function sweepPlanVersions(projectId: number): Promise<void> {
  const { planVersion } = db().entities;
  await deleteEveryPage(planVersion, (cursor) =>
    planVersion.query
      .byPlan({ projectId })
      .go({ cursor, consistent: true, attributes: ['projectId', 'planId', 'version'] }),
  );
}

/**
 * What a priced write of a plan adds to its transaction: the plan's version moves from `read`
 * (absent: 1, never written) to `next`, on the condition that it is still `read` (so two
 * priced writes never give one number to two contents), and the content of `read` is frozen.
 */
export interface PricedStep {
  read: number | undefined;
  next: number;
  at: string;
  frozen: NewPlanVersionItem;
  /** `plan.version_created`, written in the same transaction as the step (lifecycle.md §4). */
  event?: NewWebhookEventItem;
}

/** A plan's step in a write of another item (a feature) that changes the plan's content. */
export interface PlanStep {
  planId: number;
  step: PricedStep;
}

/** The step's clauses for a raw UpdateItem of the plan item. */
export function pricedClauses(step: PricedStep) {
  return {
    set: ['#pricedVersion = :pricedNext', '#pricedAt = :pricedAt'],
    condition: [step.read === undefined ? 'attribute_not_exists(#pricedVersion)' : '#pricedVersion = :pricedRead'],
    names: { '#pricedVersion': 'pricedVersion', '#pricedAt': 'pricedAt' },
    values: {
      ':pricedNext': step.next,
      ':pricedAt': step.at,
      ...(step.read === undefined ? {} : { ':pricedRead': step.read }),
    },
  };
}
