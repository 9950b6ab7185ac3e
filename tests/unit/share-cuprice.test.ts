/**
 * The Cuprice-compatible part of the share answer and its size rule (docs/decisions.md,
 * "The Cuprice-compatible part"): the full form when the whole answer fits the budget as
 * Lambda serialises it, else the light one, else none; the size is counted, not built, so
 * it must be exact to the byte, whatever the texts hold (quotes, backslashes, control
 * characters, 4-byte characters) and however JSON writes the numbers.
 */
import { describe, expect, test } from 'vitest';
import { limits } from '#contract/limits.ts';
import type { ProjectPartition } from '#db/types.ts';
import { lambdaBytes } from '#domain/share/cuprice.ts';
import { ShareView } from '#domain/share/schemas.ts';
import { toShareView } from '#domain/share/share.ts';
import { featureItem, planAssignment, planItem, projectItem } from '../fixtures/factories.ts';

const tricky = 'a "quoted" \\ back\nslash\t\u0001 \u{20000}é';

function partition(): ProjectPartition {
  const features = [
    featureItem({
      featureId: 7,
      name: `Events ${tricky}`,
      description: `Tracked ${tricky}`.repeat(3),
      isCountable: true,
      featureType: 'Usage Based',
      usageCount: 1e21,
      condition: `Up to ${tricky}`,
      countPrice: 0.1 + 0.2,
    }),
    featureItem({ featureId: 8, name: 'SSO', description: 'Single sign-on', basePrice: 123456.789 }),
    featureItem({ featureId: 9, name: 'Unassigned', description: 'In no plan' }),
  ];
  const plans = [
    planItem({ planId: 30, name: `Pro ${tricky}`, description: tricky }),
    planItem({ planId: 20, name: 'Free', isFree: true, basePrice: 0 }),
    planItem({ planId: 25, name: 'Hidden', isVisible: false }),
    planItem({ planId: 40, name: 'Empty' }),
  ];
  const planFeatures = [
    planAssignment({ planId: 30, featureId: 7, planFeatureId: 101, multiplier: 0.1 + 0.7 }),
    planAssignment({ planId: 30, featureId: 8, planFeatureId: 1e15, multiplier: 1e-7 }),
    planAssignment({ planId: 20, featureId: 7, planFeatureId: 99, multiplier: 1 }),
    planAssignment({ planId: 25, featureId: 8, planFeatureId: 5, multiplier: 2 }),
  ];
  return { project: projectItem({ name: `Acme ${tricky}` }), features, plans, planFeatures } as ProjectPartition;
}

describe('pricingPlans', () => {
  test('carries the visible plans by id, order from 0, each feature with its details', () => {
    const view = ShareView().parse(toShareView(partition()));
    expect(view.pricingPlans?.map(({ id, order, isVisible }) => ({ id, order, isVisible }))).toEqual([
      { id: 20, order: 0, isVisible: true },
      { id: 30, order: 1, isVisible: true },
      { id: 40, order: 2, isVisible: true },
    ]);
    const pro = view.pricingPlans?.[1];
    expect(pro?.planFeatures.map(({ id, multiplier }) => ({ id, multiplier }))).toEqual([
      { id: 101, multiplier: 0.1 + 0.7 },
      { id: 1e15, multiplier: 1e-7 },
    ]);
    expect(pro?.planFeatures[1]?.feature).toEqual({
      id: 8,
      name: 'SSO',
      description: 'Single sign-on',
      featureType: 'Standart',
      basePrice: 123456.789,
      countableData: null,
    });
    expect(pro?.planFeatures[0]?.feature.countableData).toMatchObject({ usageCount: 1e21, countPrice: 0.1 + 0.2 });
    expect(view.pricingPlans?.[2]?.planFeatures).toEqual([]);
  });

  test('sizes its form to the byte: full while the answer fits, then light, then none', () => {
    const full = toShareView(partition(), Number.POSITIVE_INFINITY);
    const fullBytes = lambdaBytes(full);
    expect(toShareView(partition(), fullBytes)).toEqual(full);

    const light = toShareView(partition(), fullBytes - 1);
    for (const plan of light.pricingPlans ?? []) {
      for (const { feature } of plan.planFeatures) {
        expect(Object.keys(feature)).toEqual(['id', 'name', 'featureType', 'basePrice']);
      }
    }
    expect(light.pricingPlans?.map((plan) => plan.planFeatures.length)).toEqual([1, 2, 0]);
    const lightBytes = lambdaBytes(light);
    expect(lightBytes).toBeLessThan(fullBytes);
    expect(toShareView(partition(), lightBytes)).toEqual(light);

    const none = toShareView(partition(), lightBytes - 1);
    expect(none).not.toHaveProperty('pricingPlans');
    // The contract's part is the same in every form.
    const { pricingPlans: _f, ...rest } = full;
    expect(none).toEqual(rest);
    for (const view of [full, light, none]) expect(ShareView().safeParse(view).success).toBe(true);
  });

  test('by default the budget is a megabyte under Lambda’s 6 MB', () => {
    expect(limits.answerBytesMax).toBe(5_000_000);
    expect(toShareView(partition()).pricingPlans?.[1]?.planFeatures[0]?.feature).toHaveProperty('description');
  });
});

describe('lambdaBytes', () => {
  test('is the body’s size inside Lambda’s serialised result', () => {
    const body = { text: tricky, n: [1e21, 0.30000000000000004] };
    const result = JSON.stringify({ statusCode: 200, body: JSON.stringify(body) });
    const empty = JSON.stringify({ statusCode: 200, body: '' });
    expect(lambdaBytes(body)).toBe(Buffer.byteLength(result) - Buffer.byteLength(empty));
  });
});
