import type { PricedStep } from '#db/plan-versions.ts';
import type { FeatureItem, PlanItem, ProjectPartition } from '#db/types.ts';
import { assignmentsByPlan } from '../plans/view.ts';
import { outboxEvent } from '../webhooks-out/events.ts';
import { contentOfRead, isPricedChange, type VersionContent, versionFields, versionOf } from './content.ts';

export { contentOfRead };

/** The content a write of the plan read would freeze: the version it supersedes, as of now. */
export const frozenOf = (projectId: number, plan: PlanItem, content: VersionContent) => ({
  projectId,
  planId: plan.planId,
  version: versionOf(plan),
  content,
  createdAt: plan.pricedAt ?? plan.createdAt,
});

/**
 * The version step of a write that turns the plan's content `before` into `after`: none when
 * nothing priced changes (lifecycle.md §1: presentation is not versioned), else version + 1
 * with `before` frozen under the version read, in the write's own transaction, and the new
 * version's `plan.version_created` event with it (lifecycle.md §4).
 */
export function pricedStep(
  projectId: number,
  plan: PlanItem,
  before: VersionContent,
  after: VersionContent,
  at: string,
): PricedStep | undefined {
  if (!isPricedChange(before, after)) return undefined;
  const next = versionOf(plan) + 1;
  const data = { planId: plan.planId, ...versionFields(next, at, after) };
  return {
    read: plan.pricedVersion,
    next,
    at,
    frozen: frozenOf(projectId, plan, before),
    event: outboxEvent(projectId, 'plan.version_created', data),
  };
}

/**
 * The steps of a write to a feature (`after`; null: its delete) for every plan that has it and
 * whose priced content it changes. Each plan's step is conditioned on the version read here.
 */
export function featureSteps(partition: ProjectPartition, featureId: number, after: FeatureItem | null, at: string) {
  const { projectId } = partition.project;
  const byPlan = assignmentsByPlan(partition);
  return partition.plans.flatMap((plan) => {
    const assignments = byPlan.get(plan.planId) ?? [];
    if (!assignments.some((a) => a.feature.featureId === featureId)) return [];
    const changed = assignments.flatMap((a) =>
      a.feature.featureId !== featureId ? [a] : after === null ? [] : [{ ...a, feature: after }],
    );
    const step = pricedStep(projectId, plan, contentOfRead(plan, assignments), contentOfRead(plan, changed), at);
    return step ? [{ planId: plan.planId, step }] : [];
  });
}
