import type { PlanItem, ProjectPartition } from '#db/types.ts';
import { assignmentsByPlan } from '../plans/view.ts';
import { contentOfRead } from './content.ts';

/** A plan's content as a project read has it now: the content of its current version. */
export const planContent = (partition: Pick<ProjectPartition, 'features' | 'planFeatures'>, plan: PlanItem) =>
  contentOfRead(plan, assignmentsByPlan(partition).get(plan.planId) ?? []);
