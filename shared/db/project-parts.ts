// Reads of one part of a project (its features, one plan) that touch only that part, for
// the endpoints and writes that need no more; the whole project is read by projects.ts.
import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import type { FeatureHeadItem } from './entities/feature-head.ts';
import { collectionItems, itemsOf } from './items.ts';
import { assignmentsIn, planItemKey } from './plan-assignments.ts';
import { queryAll, queryTemplate } from './raw-query.ts';
import { db, rawTable } from './service.ts';
import type { FeatureItem, PlanAssignment, PlanItem, ProjectKey } from './types.ts';

/**
 * The sort-key range from the feature head to the last feature, taken from ElectroDB's own
 * keys: the head's sort key, and the features' prefix followed by the highest character.
 */
const featureRange = queryTemplate(['ownerId', 'slug'], ({ entities }, key) => {
  const head = entities.featureHead.get(key).params();
  const { pk, sk } = head.Key as { pk: string; sk: string };
  const features = entities.feature.query.projectData(key).params().ExpressionAttributeValues as {
    ':sk1': string;
  };
  return {
    TableName: head.TableName,
    KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
    ExpressionAttributeValues: { ':pk': pk, ':from': sk, ':to': `${features[':sk1']}\uffff` },
    ConsistentRead: true,
  };
});

export interface FeatureList {
  head: FeatureHeadItem;
  /** The features of the project the head names, in id order. */
  features: FeatureItem[];
}

/**
 * The project's features and its feature head, in one Query of their key range (strongly
 * consistent; one page up to about 1 MB of features). Only the features with the head's
 * share id are the project's: a deleted project's may still wait for their sweep.
 * Undefined when there is no head: no project.
 */
export async function readFeatureList(key: ProjectKey): Promise<FeatureList | undefined> {
  const { featureHead, feature } = db().entities;
  const read = collectionItems({ featureHead, feature }, await queryAll(featureRange(key)));
  const [head] = read.featureHead;
  if (!head) return undefined;
  return { head, features: read.feature.filter((item) => item.shareId === head.shareId) };
}

/**
 * One plan's item (with its assignments in it), of any share id: one strongly consistent
 * GetItem, read by the item reader of the whole-project reads (shared/db/items.ts).
 */
export async function readPlan(key: ProjectKey, planId: number): Promise<PlanItem | undefined> {
  const { Key, TableName } = planItemKey(key, planId);
  const { Item } = await rawTable().lowLevel.send(
    new GetItemCommand({ TableName, Key: { pk: { S: Key.pk }, sk: { S: Key.sk } }, ConsistentRead: true }),
  );
  return Item ? itemsOf(db().entities.plan, [Item])[0] : undefined;
}

export interface PlanPart {
  plan: PlanItem | undefined;
  assignments: PlanAssignment[];
}

/**
 * The features (with their head) and one plan with its assignments: the feature range's Query
 * and the plan's GetItem at once (strongly consistent), whatever else the project holds. The
 * plan is kept only with the head's share id. Undefined when the project has no head.
 */
export async function readPlanWithFeatures(
  key: ProjectKey,
  planId: number,
): Promise<(FeatureList & PlanPart) | undefined> {
  const [list, stored] = await Promise.all([readFeatureList(key), readPlan(key, planId)]);
  if (!list) return undefined;
  const plan = stored?.shareId === list.head.shareId ? stored : undefined;
  return { ...list, plan, assignments: plan ? assignmentsIn(plan) : [] };
}
