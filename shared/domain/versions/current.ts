import type { PlanItem, ProjectPartition } from '#db/types.ts';
import { assignmentsByPlan } from '../plans/view.ts';
import { contentOf, type VersionContent } from './content.ts';

/** A plan's content as a project read has it now: the content of its current version. */
export function planContent(
  partition: Pick<ProjectPartition, 'features' | 'planFeatures'>,
  plan: PlanItem,
): VersionContent {
  const assigned = (assignmentsByPlan(partition).get(plan.planId) ?? []).map(({ feature, assignment }) => ({
    feature,
    multiplier: assignment.multiplier,
  }));
  return contentOf(plan, assigned);
}
