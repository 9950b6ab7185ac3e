/**
 * A project at the documented limits (docs/decisions.md, "Response sizes" and "Reads and
 * their size"): as many features and plans as the limits allow, every feature assigned to
 * every plan, every plan visible, every text at its cap in 4-byte UTF-8 characters (an
 * astral CJK letter: the longest a character of a valid text can be, in the body and again
 * in the Lambda envelope). Built through the db layer (the API would take minutes), then
 * each endpoint invoked as Lambda invokes it.
 *
 * 1. Every answer fits Lambda's synchronous response: the whole invocation result, the JSON
 *    envelope API Gateway reads (status, headers, and the body as a JSON string), measured as
 *    Lambda serialises it, stays under 6 MB with room to spare.
 * 2. The share answer's Cuprice-compatible `pricingPlans` (every plan repeats its features'
 *    details) gives way first: lighter, or left out, and the same in every coding.
 */
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { beforeAll, describe, expect, test } from 'vitest';
import { limits } from '#contract/limits.ts';
import { db } from '#db/service.ts';
import type { NewFeatureItem, NewPlanItem, ProjectScope } from '#db/types.ts';
import { composeFromEnvironment } from '#dev/local-server.ts';
import { CreateFeatureBody } from '#domain/features/schemas.ts';
import { CreatePlanBody } from '#domain/plans/schemas.ts';
import { CreateProjectBody } from '#domain/projects/schemas.ts';
import { groupActions } from '#functions/action-registry.ts';
import { routes } from '#functions/routes.ts';
import { createGroupHandler } from '#http/group-handler.ts';
import type { Group } from '#shared/routes.ts';
import { newOwner } from '../fixtures/api.ts';
import { recordDynamoCalls } from '../fixtures/dynamo-calls.ts';
import { httpEvent, lambdaContext } from '../fixtures/events.ts';
import { featureItem, planItem, projectItem } from '../fixtures/factories.ts';

/** Lambda's synchronous response limit is 6 MB; every answer must stay a megabyte under it. */
const LAMBDA_RESPONSE_LIMIT = 6_000_000;
const BUDGET = 5_000_000;

/** U+20000, a CJK letter outside the BMP: 4 bytes in UTF-8, one character for every length rule. */
const WIDE = '\u{20000}';
const text = (chars: number) => WIDE.repeat(chars);

// Numbers with as many digits as the bounds allow.
const price = limits.priceMax - 0.123456789;
const usageCount = limits.usageCountMax - 0.1234;
const multiplier = limits.multiplierMax - 0.123456;
const url = `https://example.com/${'a'.repeat(limits.urlMax - 20)}`;

const app = composeFromEnvironment();
const handlers = Object.fromEntries(
  (Object.keys(groupActions) as Group[]).map((group) => [
    group,
    createGroupHandler(groupActions[group] as never, app, routes),
  ]),
) as Record<Group, ReturnType<typeof createGroupHandler>>;
const record = recordDynamoCalls();

interface Built {
  scope: ProjectScope;
  planIds: number[];
  featureIds: number[];
}

let key: string;
let big: Built;
/** The same in ASCII: the largest a project in one-byte text gets. */
let plain: Built;

/** Writes items with BatchWriteItem, many batches at once. */
async function putAll<T>(
  entity: { put(items: T[]): { go(o: { concurrency: number }): Promise<unknown> } },
  items: T[],
) {
  await entity.put(items).go({ concurrency: 16 });
}

/**
 * A project of `plans` plans and the most features, every text at its cap (of `write`'s
 * characters, 4-byte ones by default), all assigned.
 */
async function build(ownerId: string, slug: string, idBase: number, plans: number, write = text): Promise<Built> {
  const scope = { ownerId, slug, shareId: `${slug}${ownerId.replace(/[^a-z0-9]/g, '')}` };
  const features = limits.featuresPerProject;
  const project = projectItem({
    ...scope,
    projectId: idBase,
    name: write(limits.nameMax),
    description: write(limits.projectDescriptionMax),
    pricingPageDescription: write(limits.pricingPageDescriptionMax),
    annualDiscount: 0.123456789,
    checkoutSuccessUrl: url,
    checkoutCancelUrl: url,
    checkoutTestSuccessUrl: url,
    checkoutTestCancelUrl: url,
    featureCount: features,
    planCount: plans,
    theme: {
      ...projectItem().theme,
      fontFamily: write(limits.fontFamilyMax),
      customCSS: `/*${write(limits.customCssMax - 4)}*/`,
    },
  });
  const featureItems: NewFeatureItem[] = Array.from({ length: features }, (_, i) =>
    featureItem({
      ...scope,
      featureId: idBase + i,
      name: write(limits.nameMax),
      description: write(limits.itemDescriptionMax),
      basePrice: price,
      featureType: 'Usage Based',
      isCountable: true,
      usageCount,
      condition: write(limits.conditionMax),
      countPrice: price,
      eventAggregationMethod: 'unique_count',
    }),
  );
  const planItems: NewPlanItem[] = Array.from({ length: plans }, (_, p) =>
    planItem({
      ...scope,
      planId: idBase + p,
      name: write(limits.nameMax),
      description: write(limits.itemDescriptionMax),
      basePrice: price,
      isVisible: true,
      freemiumDay: limits.freemiumDayMax,
      isPerUserPricing: true,
      perUserMultiplier: multiplier,
      // Every feature, at the highest multiplier.
      assigned: Object.fromEntries(
        featureItems.map((feature, f) => [
          feature.featureId,
          { i: idBase + p * features + f, m: multiplier, c: '2026-01-01T00:00:00.000Z' },
        ]),
      ),
    }),
  );

  // The texts are at their caps, and valid: one more character would be refused.
  expect(CreateProjectBody().safeParse({ name: project.name, description: project.description }).success).toBe(true);
  expect(CreateProjectBody().safeParse({ name: write(limits.nameMax + 1) }).success).toBe(false);
  const {
    ownerId: _o,
    slug: _s,
    shareId,
    featureId,
    createdAt,
    updatedAt,
    ...feature
  } = featureItems[0] as NewFeatureItem;
  expect(CreateFeatureBody().safeParse(feature).success).toBe(true);
  expect(CreateFeatureBody().safeParse({ ...feature, condition: write(limits.conditionMax + 1) }).success).toBe(false);
  const planText = { name: write(limits.nameMax), description: write(limits.itemDescriptionMax) };
  expect(CreatePlanBody().safeParse(planText).success).toBe(true);

  const { entities } = db();
  await entities.project.create(project).go();
  await entities.featureHead.create({ ...scope, projectId: project.projectId }).go();
  await Promise.all([putAll(entities.feature, featureItems), putAll(entities.plan, planItems)]);
  return { scope, planIds: planItems.map((p) => p.planId), featureIds: featureItems.map((f) => f.featureId) };
}

beforeAll(async () => {
  const owner = await newOwner('limits');
  key = owner.writeKey;
  [big, plain] = await Promise.all([
    build(owner.ownerId, 'at-the-limits', 900_000_000_000, limits.plansPerProject),
    build(owner.ownerId, 'plain-limits', 800_000_000_000, limits.plansPerProject, (chars) => 'a'.repeat(chars)),
  ]);
}, 180_000);

/** Invokes the route as API Gateway would; the result, its size as Lambda serialises it, and its DynamoDB calls. */
async function invoke(
  routeKey: string,
  group: Group,
  pathParameters: Record<string, string>,
  body?: unknown,
  headers: Record<string, string> = {},
) {
  const [method, route] = routeKey.split(' ') as [string, string];
  const path = route.replace(/\{(\w+)\}/g, (_, name: string) => pathParameters[name] ?? '');
  const { result, calls } = await record(() =>
    handlers[group](
      httpEvent(method, route, {
        path,
        pathParameters,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      }),
      lambdaContext(),
    ),
  );
  return { result, calls, envelope: Buffer.byteLength(JSON.stringify(result)) };
}

const projectPath = (p: Built) => ({ slug: p.scope.slug });
const planPath = (p: Built) => ({ slug: p.scope.slug, planId: String(p.planIds[0]) });

/** What a client receives, coded (docs/decisions.md, "Compressed answers"): under a megabyte at the limits. */
const CODED_BUDGET = 1_000_000;

describe('every answer of a project at the limits fits a Lambda response', () => {
  const sizes: Record<string, number> = {};
  const coded: Record<string, string> = {};

  test.each([
    ['GET /api/share/{shareId}', 'share', (p: Built) => ({ shareId: p.scope.shareId }), undefined],
    ['GET /api/v1/projects/{slug}', 'projects', projectPath, undefined],
    ['PUT /api/v1/projects/{slug}', 'projects', projectPath, () => ({ description: text(limits.nameMax) })],
    ['GET /api/v1/projects', 'projects', () => ({}), undefined],
    ['GET /api/v1/projects/{slug}/features', 'features', projectPath, undefined],
    ['GET /api/v1/projects/{slug}/plans', 'plans', projectPath, undefined],
    ['PUT /api/v1/projects/{slug}/plans/{planId}', 'plans', planPath, () => ({ freemiumDay: 1 })],
    ['GET /api/v1/projects/{slug}/plans/{planId}/features', 'plans', planPath, undefined],
    [
      'POST /api/v1/projects/{slug}/plans/{planId}/features',
      'plans',
      planPath,
      () => ({ features: big.featureIds.map((featureId) => ({ featureId })) }),
    ],
  ] as const)('%s', async (routeKey, group, params, body) => {
    const { result, envelope } = await invoke(routeKey, group, params(big), body?.());
    expect(result.statusCode, String(result.body).slice(0, 300)).toBe(200);
    sizes[routeKey] = envelope;
    expect(envelope).toBeLessThan(BUDGET);
    expect(BUDGET).toBeLessThan(LAMBDA_RESPONSE_LIMIT);
    // Writes run again with each coding: each repeats the same change (a PUT of the same
    // fields, features already assigned), so the answers stay the same size.
    const wire: string[] = [];
    for (const coding of ['br', 'gzip']) {
      const { result: again } = await invoke(routeKey, group, params(big), body?.(), { 'accept-encoding': coding });
      expect(again.statusCode).toBe(200);
      expect(again.headers['content-encoding']).toBe(coding);
      const bytes = Buffer.from(String(again.body), 'base64').length;
      expect(bytes, `${routeKey} ${coding}`).toBeLessThan(CODED_BUDGET);
      wire.push(`${coding} ${bytes.toLocaleString('en-US')}`);
    }
    coded[routeKey] = wire.join(', ');
  });

  test('the worst case is real: the share and the project answers are megabytes', () => {
    console.log(
      `Lambda response bytes at ${limits.featuresPerProject} features × ${limits.plansPerProject} plans:\n${Object.entries(
        sizes,
      )
        .map(([route, bytes]) => `  ${route}: ${bytes.toLocaleString('en-US')} (coded: ${coded[route]})`)
        .join('\n')}`,
    );
    expect(sizes['GET /api/share/{shareId}']).toBeGreaterThan(3_000_000);
    expect(sizes['GET /api/v1/projects/{slug}']).toBeGreaterThan(3_000_000);
  });
});

describe("the share answer's Cuprice-compatible part gives way at the limits", () => {
  const decode = (body: string, coding: string | undefined) => {
    if (coding === undefined) return body;
    const bytes = Buffer.from(body, 'base64');
    return (coding === 'br' ? brotliDecompressSync(bytes) : gunzipSync(bytes)).toString('utf8');
  };

  // With 4-byte texts even the light form is over the budget; with ASCII the light one fits.
  test.each([
    ['4-byte texts', 'none', () => big],
    ['ASCII texts', 'light', () => plain],
  ] as const)('%s: %s, in identity, br and gzip alike', async (label, form, project) => {
    const tags = new Set<string>();
    const wire: string[] = [];
    for (const coding of [undefined, 'br', 'gzip']) {
      const { result, envelope } = await invoke(
        'GET /api/share/{shareId}',
        'share',
        { shareId: project().scope.shareId },
        undefined,
        coding ? { 'accept-encoding': coding } : {},
      );
      expect(result.statusCode).toBe(200);
      expect(result.headers['content-encoding']).toBe(coding);
      expect(envelope).toBeLessThan(BUDGET);
      wire.push(`${coding ?? 'identity'} ${envelope.toLocaleString('en-US')}`);
      const view = JSON.parse(decode(String(result.body), coding));
      // The contract's part is whole.
      expect(view.plans).toHaveLength(limits.plansPerProject);
      expect(view.features).toHaveLength(limits.featuresPerProject);
      if (form === 'none') expect(view).not.toHaveProperty('pricingPlans');
      else {
        expect(view.pricingPlans).toHaveLength(limits.plansPerProject);
        for (const plan of view.pricingPlans) {
          expect(plan.planFeatures).toHaveLength(limits.featuresPerProject);
          for (const { feature } of plan.planFeatures) {
            expect(Object.keys(feature)).toEqual(['id', 'name', 'featureType', 'basePrice']);
          }
        }
      }
      tags.add(String(result.headers.etag).replace(/-(br|gzip)"$/, '"'));
    }
    expect(tags.size).toBe(1);
    console.log(`The share answer with ${label}, pricingPlans ${form}, Lambda bytes: ${wire.join(', ')}`);
  });
});
