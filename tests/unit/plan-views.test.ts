/**
 * planViews builds every plan's view in one pass (one feature summary per feature, no joined
 * pair per assignment): held here to the plain composition it replaced, toPlanView over
 * assignmentsByPlan, byte for byte, on varied partitions (assignments out of order, one of a
 * deleted feature, one of a deleted plan, plans without any).
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import type { FeatureItem, PlanAssignment, PlanItem, ProjectPartition } from '#db/types.ts';
import { assignmentsByPlan, planViews, toPlanView } from '#domain/plans/view.ts';
import { featureItem, planAssignment, planItem } from '../fixtures/factories.ts';

const reference = (partition: ProjectPartition) => {
  const joined = assignmentsByPlan(partition);
  return [...partition.plans]
    .sort((a, b) => a.planId - b.planId)
    .map((plan) => toPlanView(plan, joined.get(plan.planId) ?? []));
};

describe('planViews', () => {
  test('the same JSON as toPlanView over assignmentsByPlan', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 1, max: 60 }), { maxLength: 12 }),
        fc.uniqueArray(fc.integer({ min: 1, max: 30 }), { maxLength: 6 }),
        fc.array(
          fc.record({
            plan: fc.integer({ min: 1, max: 32 }),
            feature: fc.integer({ min: 1, max: 64 }),
            m: fc.double({ min: 0, max: 100, noNaN: true }),
          }),
          { maxLength: 80 },
        ),
        (featureIds, planIds, pairs) => {
          const seen = new Set<string>();
          const planFeatures = pairs
            .filter(({ plan, feature }) => !seen.has(`${plan}:${feature}`) && seen.add(`${plan}:${feature}`))
            .map(({ plan, feature, m }, n) =>
              planAssignment({ planId: plan, featureId: feature, planFeatureId: 1000 - n, multiplier: m }),
            ) as PlanAssignment[];
          const partition = {
            features: featureIds.map((featureId) => featureItem({ featureId, name: `F${featureId}` })) as FeatureItem[],
            plans: planIds.map((planId) => planItem({ planId, name: `P${planId}` })) as PlanItem[],
            planFeatures,
          } as unknown as ProjectPartition;
          expect(JSON.stringify(planViews(partition))).toBe(JSON.stringify(reference(partition)));
        },
      ),
      { numRuns: 300 },
    );
  });
});
