import type { PricedStep } from '#db/plan-versions.ts';
import type { FeatureItem, PlanItem } from '#db/types.ts';
import { contentOf, isPricedChange, type VersionContent, versionOf } from './content.ts';

/** Assignments joined to their features, as the plan reads find them. */
type Joined = readonly { feature: FeatureItem; assignment: { multiplier: number } }[];

/** A plan's content from its read assignments. */
export const contentOfRead = (plan: PlanItem, assignments: Joined): VersionContent =>
  contentOf(
    plan,
    assignments.map(({ feature, assignment }) => ({ feature, multiplier: assignment.multiplier })),
  );

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
 * with `before` frozen under the version read, in the write's own transaction.
 */
export function pricedStep(
  projectId: number,
  plan: PlanItem,
  before: VersionContent,
  after: VersionContent,
  at: string,
): PricedStep | undefined {
  if (!isPricedChange(before, after)) return undefined;
  return { read: plan.pricedVersion, next: versionOf(plan) + 1, at, frozen: frozenOf(projectId, plan, before) };
}
