// Reads of one part of a project (its features, one plan) that touch only that part, for
// the endpoints and writes that need no more; the whole project is read by projects.ts.
import type { FeatureHeadItem } from './entities/feature-head.ts';
import { collectionItems } from './items.ts';
import { type PlanLayout, readStoredPlan } from './plan-keys.ts';
import { queryAll, queryTemplate } from './raw-query.ts';
import { db } from './service.ts';
import { projectIsLive, writeTransaction } from './transactions.ts';
import type { FeatureItem, PlanFeatureItem, PlanItem, ProjectItem, ProjectKey } from './types.ts';

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
 * Undefined when there is no head: no project, or one created before heads existed.
 */
export async function readFeatureList(key: ProjectKey): Promise<FeatureList | undefined> {
  const { head, features } = await readFeatureRange(key);
  if (!head) return undefined;
  return { head, features: features.filter((item) => item.shareId === head.shareId) };
}

/**
 * The feature head, if any, and the features of any share id, in the one Query of
 * readFeatureList: for the migration, which reads projects that may have no head yet.
 */
export async function readFeatureRange(
  key: ProjectKey,
): Promise<{ head: FeatureHeadItem | undefined; features: FeatureItem[] }> {
  const { featureHead, feature } = db().entities;
  const read = collectionItems({ featureHead, feature }, await queryAll(featureRange(key)));
  return { head: read.featureHead[0], features: read.feature };
}

export interface PlanPart {
  plan: PlanItem | undefined;
  /** Where the plan's item was read (writers address it there); 'prefix' when missing. */
  layout: PlanLayout;
  assignments: PlanFeatureItem[];
}

/**
 * The features (with their head), one plan and its assignments: the feature range and the
 * plan's key prefix (the plan leads its assignments there), two Queries at once (strongly
 * consistent), whatever else the project holds; a plan stored at its old key costs one
 * GetItem more (shared/db/plan-keys.ts). The plan and the assignments are kept only with the
 * head's share id. Undefined when the project has no head.
 */
export async function readPlanWithFeatures(
  key: ProjectKey,
  planId: number,
): Promise<(FeatureList & PlanPart) | undefined> {
  const [list, stored] = await Promise.all([readFeatureList(key), readStoredPlan(key, planId)]);
  if (!list) return undefined;
  const ours = ({ shareId }: { shareId: string }) => shareId === list.head.shareId;
  const plan = stored.plan && ours(stored.plan) ? stored.plan : undefined;
  return { ...list, plan, layout: plan ? stored.layout : 'prefix', assignments: stored.assignments.filter(ours) };
}

/** The project's feature head (strongly consistent): undefined when it has none. */
export async function readFeatureHead(key: ProjectKey): Promise<FeatureHeadItem | undefined> {
  const { data } = await db().entities.featureHead.get(key).go({ consistent: true });
  return data ?? undefined;
}

/**
 * Writes the project's feature head, in a transaction that checks the project item is still
 * there with its share id (so no head outlives its project: the delete removes the head in
 * its own transaction). Idempotent (a head already there is kept as it is); 'project_gone'
 * when the project is not there.
 */
export async function writeFeatureHead(project: ProjectItem): Promise<'written' | 'project_gone'> {
  const { ownerId, slug, shareId, projectId } = project;
  const outcome = await writeTransaction((entities) => [
    projectIsLive(entities, { ownerId, slug, shareId }),
    // Never over one already there: it counts the project's feature deletes (plan-assignments.ts).
    entities.featureHead.create({ ownerId, slug, shareId, projectId }).commit(),
  ]);
  if (outcome.committed) return 'written';
  return outcome.reasons[0]?.code === 'ConditionalCheckFailed' ? 'project_gone' : 'written';
}
