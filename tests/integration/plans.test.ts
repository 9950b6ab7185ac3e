import { beforeAll, describe, expect, test } from 'vitest';
import { limits } from '#contract/limits.ts';
import { PlanFeatureDetailView, PlanView } from '#domain/plans/schemas.ts';
import { type ApiClient, newOwner, useLocalServer } from '../fixtures/api.ts';
import { makeFeature, makePlan, makeProject } from '../fixtures/factories.ts';
import { itemsOfOwner, storedAssignments } from '../fixtures/table.ts';

const server = useLocalServer();
let api: ApiClient;
let slug: string;
let features: Array<{ id: number; name: string; basePrice: number; featureType: string }>;

const plansPath = () => `/api/v1/projects/${slug}/plans`;

/** A new project with four features: each group of tests below gets one, so none reaches the plan limit. */
async function useFreshProject() {
  slug = (await makeProject(api)).slug;
  features = [];
  for (let i = 0; i < 4; i++) features.push(await makeFeature(api, slug, { basePrice: i + 1 }));
}

beforeAll(async () => {
  const owner = await newOwner('plans');
  api = server.client(owner.writeKey);
});

describe('POST /api/v1/projects/{slug}/plans', () => {
  beforeAll(useFreshProject);

  test('creates with defaults: 201 with planFeatures', async () => {
    const response = await api.post(plansPath(), { name: 'Starter' });
    expect(response.status).toBe(201);
    expect(PlanView().parse(response.body)).toMatchObject({
      name: 'Starter',
      description: '',
      basePrice: 0,
      isPopular: false,
      isVisible: true,
      isFree: false,
      freemiumDay: 0,
      isPerUserPricing: false,
      perUserMultiplier: 1,
      planFeatures: [],
    });
  });

  test('assigns features at creation with multiplier default 1; duplicates count once', async () => {
    const [a, b] = features;
    const response = await api.post(plansPath(), {
      name: 'Pro',
      basePrice: 29,
      features: [{ featureId: a?.id, multiplier: 2.5 }, { featureId: b?.id }, { featureId: a?.id, multiplier: 9 }],
    });
    expect(response.status).toBe(201);
    const plan = PlanView().parse(response.body);
    expect(plan.planFeatures.map((pf) => [pf.feature.id, pf.multiplier])).toEqual([
      [a?.id, 2.5],
      [b?.id, 1],
    ]);
    expect(plan.planFeatures[0]?.feature).toEqual({
      id: a?.id,
      name: a?.name,
      featureType: a?.featureType,
      basePrice: a?.basePrice,
    });
    expect(new Set(plan.planFeatures.map((pf) => pf.id)).size).toBe(2);
    expect((await api.get(plansPath())).body.plans.find((p: { id: number }) => p.id === plan.id)).toEqual(plan);
  });

  test('a free plan costs 0 whatever basePrice says', async () => {
    const plan = await makePlan(api, slug, { isFree: true, basePrice: 99 });
    expect(plan.basePrice).toBe(0);
    expect(plan.isFree).toBe(true);
  });

  test('more than 49 features (several transactions) are all assigned', async () => {
    const project = await makeProject(api);
    const many = [];
    for (let i = 0; i < 60; i++) many.push(await makeFeature(api, project.slug));
    const plan = await makePlan(api, project.slug, { features: many.map((f) => ({ featureId: f.id })) });
    expect(plan.planFeatures).toHaveLength(60);
    const listed = (await api.get(`/api/v1/projects/${project.slug}/plans/${plan.id}/features`)).body.features;
    expect(listed.map((pf: { feature: { id: number } }) => pf.feature.id)).toEqual(many.map((f) => f.id));
  });

  test.each([
    [{}, 'name'],
    [{ name: '' }, 'name'],
    [{ name: 'x', basePrice: -1 }, 'basePrice'],
    [{ name: 'x', freemiumDay: 731 }, 'freemiumDay'],
    [{ name: 'x', freemiumDay: 1.5 }, 'freemiumDay'],
    [{ name: 'x', perUserMultiplier: -1 }, 'perUserMultiplier'],
    [{ name: 'x', features: {} }, 'features'],
    [{ name: 'x', features: [{}] }, 'features[0].featureId'],
    [{ name: 'x', features: [{ featureId: 'one' }] }, 'features[0].featureId'],
    [{ name: 'x', features: [{ featureId: 1.5 }] }, 'features[0].featureId'],
    [{ name: 'x', features: [{ featureId: 0 }] }, 'features[0].featureId'],
    [{ name: 'x', features: [{ featureId: 1, multiplier: -2 }] }, 'features[0].multiplier'],
  ])('rejects %j with 400 naming %s', async (body, path) => {
    const response = await api.post(plansPath(), body);
    expect(response.status).toBe(400);
    expect(response.body.error.details).toContainEqual(expect.objectContaining({ path }));
  });

  test('a well-formed feature id that names no feature of this project is 404, and nothing is created', async () => {
    const before = (await api.get(plansPath())).body.plans.length;
    const response = await api.post(plansPath(), { name: 'Ghost', features: [{ featureId: 987_654_321 }] });
    expect(response.status).toBe(404);
    expect(response.body.error.message).toContain('987654321');
    expect((await api.get(plansPath())).body.plans.length).toBe(before);
  });

  test(`a project holds at most ${limits.plansPerProject} plans: the next is 409 limit_exceeded`, async () => {
    const project = await makeProject(api);
    const path = `/api/v1/projects/${project.slug}/plans`;
    const results = [];
    const attempts = limits.plansPerProject + 5;
    for (let batch = 0; batch < attempts; batch += 10) {
      const size = Math.min(10, attempts - batch);
      results.push(
        ...(await Promise.all(Array.from({ length: size }, (_, i) => api.post(path, { name: `P${batch + i}` })))),
      );
    }
    expect(results.filter((r) => r.status === 201)).toHaveLength(limits.plansPerProject);
    expect(results.filter((r) => r.status === 409).map((r) => r.body.error.code)).toEqual(
      Array(5).fill('limit_exceeded'),
    );
    const projectPlan = (await api.get(path)).body.plans[0];
    const duplicate = await api.post(`${path}/${projectPlan.id}/duplicate`);
    expect(duplicate.status).toBe(409);
  });
});

describe('PUT /api/v1/projects/{slug}/plans/{planId}', () => {
  beforeAll(useFreshProject);

  test('is partial and leaves assignments alone', async () => {
    const plan = await makePlan(api, slug, { description: 'keep', features: [{ featureId: features[0]?.id }] });
    const response = await api.put(`${plansPath()}/${plan.id}`, {
      name: 'Team',
      isPopular: true,
      freemiumDay: 14,
      isPerUserPricing: true,
      perUserMultiplier: 0.5,
    });
    expect(response.status).toBe(200);
    expect(PlanView().parse(response.body)).toMatchObject({
      name: 'Team',
      description: 'keep',
      isPopular: true,
      freemiumDay: 14,
      isPerUserPricing: true,
      perUserMultiplier: 0.5,
      planFeatures: plan.planFeatures,
    });
  });

  test('setting isFree zeroes basePrice; a basePrice sent to a free plan stays 0', async () => {
    const plan = await makePlan(api, slug, { basePrice: 49 });
    const path = `${plansPath()}/${plan.id}`;
    expect((await api.put(path, { isFree: true })).body.basePrice).toBe(0);
    expect((await api.put(path, { basePrice: 10 })).body.basePrice).toBe(0);
    expect((await api.put(path, { isFree: false, basePrice: 10 })).body).toMatchObject({
      isFree: false,
      basePrice: 10,
    });
  });

  test('invalid values are 400; unknown plans 404', async () => {
    const plan = await makePlan(api, slug);
    expect((await api.put(`${plansPath()}/${plan.id}`, { isVisible: 'no' })).status).toBe(400);
    expect((await api.put(`${plansPath()}/999999999`, { name: 'x' })).status).toBe(404);
    expect((await api.put(`${plansPath()}/x1`, { name: 'x' })).status).toBe(404);
  });
});

describe('DELETE /api/v1/projects/{slug}/plans/{planId}', () => {
  beforeAll(useFreshProject);

  test('deletes the plan with its assignments and uncounts it', async () => {
    const owner = await newOwner('plan-delete');
    const mine = server.client(owner.writeKey);
    const project = await makeProject(mine);
    const feature = await makeFeature(mine, project.slug);
    const doomed = await makePlan(mine, project.slug, { features: [{ featureId: feature.id }] });
    const kept = await makePlan(mine, project.slug, { features: [{ featureId: feature.id }] });
    const response = await mine.delete(`/api/v1/projects/${project.slug}/plans/${doomed.id}`);
    expect(response.body).toEqual({ success: true });
    expect(
      (await mine.get(`/api/v1/projects/${project.slug}/plans`)).body.plans.map((p: { id: number }) => p.id),
    ).toEqual([kept.id]);
    const items = await itemsOfOwner(owner.ownerId);
    expect(storedAssignments(items).map((a) => a.planId)).toEqual([kept.id]);
    expect((await mine.get('/api/v1/projects')).body.projects[0]._count.pricingPlans).toBe(1);
    expect((await mine.delete(`/api/v1/projects/${project.slug}/plans/${doomed.id}`)).status).toBe(404);
  });
});

describe('POST /api/v1/projects/{slug}/plans/{planId}/duplicate', () => {
  beforeAll(useFreshProject);

  test('copies every field and assignment under new ids, named "(Copy)", never popular; body may be absent', async () => {
    const original = await makePlan(api, slug, {
      name: 'Business',
      description: 'for teams',
      basePrice: 99,
      isPopular: true,
      isVisible: false,
      freemiumDay: 30,
      isPerUserPricing: true,
      perUserMultiplier: 0.8,
      features: [
        { featureId: features[0]?.id, multiplier: 2 },
        { featureId: features[1]?.id, multiplier: 3 },
      ],
    });
    const response = await api.request('POST', `${plansPath()}/${original.id}/duplicate`);
    expect(response.status).toBe(201);
    const copy = PlanView().parse(response.body);
    expect(copy.id).not.toBe(original.id);
    expect(copy).toMatchObject({
      name: 'Business (Copy)',
      description: 'for teams',
      basePrice: 99,
      isPopular: false,
      isVisible: false,
      freemiumDay: 30,
      isPerUserPricing: true,
      perUserMultiplier: 0.8,
    });
    expect(copy.planFeatures.map((pf) => [pf.feature.id, pf.multiplier])).toEqual(
      original.planFeatures.map((pf: { feature: { id: number }; multiplier: number }) => [
        pf.feature.id,
        pf.multiplier,
      ]),
    );
    const originalIds = new Set(original.planFeatures.map((pf: { id: number }) => pf.id));
    expect(copy.planFeatures.every((pf) => !originalIds.has(pf.id))).toBe(true);
  });

  test('takes a name, with an empty JSON body or {} too; keeps a long name within 100 characters', async () => {
    const original = await makePlan(api, slug, { name: 'n'.repeat(100) });
    const path = `${plansPath()}/${original.id}/duplicate`;
    expect((await api.post(path, { name: 'Renamed copy' })).body.name).toBe('Renamed copy');
    expect((await api.post(path, {})).body.name).toBe(`${'n'.repeat(93)} (Copy)`);
    const emptyJson = await api.request('POST', path, { rawBody: '', headers: { 'content-type': 'application/json' } });
    expect(emptyJson.status).toBe(201);
    expect(emptyJson.body.name).toHaveLength(100);
  });

  test('an unknown plan or project is 404; a bad name 400', async () => {
    const plan = await makePlan(api, slug);
    expect((await api.post(`${plansPath()}/999999999/duplicate`)).status).toBe(404);
    expect((await api.post(`/api/v1/projects/nope-nope/plans/${plan.id}/duplicate`)).status).toBe(404);
    expect((await api.post(`${plansPath()}/${plan.id}/duplicate`, { name: '' })).status).toBe(400);
  });
});

describe('plan features', () => {
  beforeAll(useFreshProject);

  test('GET lists assignments with description and isCountable', async () => {
    const plan = await makePlan(api, slug, { features: [{ featureId: features[2]?.id, multiplier: 4 }] });
    const response = await api.get(`${plansPath()}/${plan.id}/features`);
    expect(response.status).toBe(200);
    const [assignment] = response.body.features.map((f: unknown) => PlanFeatureDetailView().parse(f));
    expect(assignment).toMatchObject({
      multiplier: 4,
      feature: { id: features[2]?.id, description: '', isCountable: false },
    });
  });

  test('POST single form adds; again it is skipped; answers with every current assignment', async () => {
    const plan = await makePlan(api, slug);
    const path = `${plansPath()}/${plan.id}/features`;
    const first = await api.post(path, { featureId: features[0]?.id, multiplier: 2 });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ added: 1, skipped: 0 });
    expect(first.body.features).toHaveLength(1);
    const second = await api.post(path, { featureId: features[0]?.id, multiplier: 5 });
    expect(second.body).toMatchObject({ added: 0, skipped: 1 });
    expect(second.body.features[0].multiplier).toBe(2);
  });

  test('POST batch form: added and skipped counted, duplicates in the request count once', async () => {
    const plan = await makePlan(api, slug, { features: [{ featureId: features[0]?.id }] });
    const response = await api.post(`${plansPath()}/${plan.id}/features`, {
      features: [
        { featureId: features[0]?.id },
        { featureId: features[1]?.id, multiplier: 3 },
        { featureId: features[2]?.id },
        { featureId: features[2]?.id },
      ],
    });
    expect(response.status).toBe(200);
    expect(response.body.added).toBe(2);
    expect(response.body.skipped).toBe(1);
    expect(response.body.features.map((f: unknown) => PlanFeatureDetailView().parse(f).feature.id)).toEqual([
      features[0]?.id,
      features[1]?.id,
      features[2]?.id,
    ]);
  });

  test.each([
    [{}, 'featureId'],
    [{ multiplier: 2 }, 'featureId'],
    [{ featureId: 'abc' }, 'featureId'],
    [{ features: [] }, 'features'],
    [{ features: 'all' }, 'features'],
    [{ features: [{ featureId: -1 }] }, 'features[0].featureId'],
  ])('POST %j is 400 naming %s', async (body, path) => {
    const plan = await makePlan(api, slug);
    const response = await api.post(`${plansPath()}/${plan.id}/features`, body);
    expect(response.status).toBe(400);
    expect(response.body.error.details).toContainEqual(expect.objectContaining({ path }));
  });

  test('POST with an unknown feature is 404 and adds none of the batch', async () => {
    const plan = await makePlan(api, slug);
    const response = await api.post(`${plansPath()}/${plan.id}/features`, {
      features: [{ featureId: features[0]?.id }, { featureId: 987_654_321 }],
    });
    expect(response.status).toBe(404);
    expect((await api.get(`${plansPath()}/${plan.id}/features`)).body.features).toEqual([]);
  });

  test('POST to an unknown plan is 404', async () => {
    expect((await api.post(`${plansPath()}/999999999/features`, { featureId: features[0]?.id })).status).toBe(404);
  });

  test('PUT changes the multiplier; 404 when not assigned', async () => {
    const plan = await makePlan(api, slug, { features: [{ featureId: features[1]?.id }] });
    const path = `${plansPath()}/${plan.id}/features`;
    const response = await api.put(`${path}/${features[1]?.id}`, { multiplier: 7.5 });
    expect(response.status).toBe(200);
    expect(PlanFeatureDetailView().parse(response.body)).toMatchObject({
      multiplier: 7.5,
      feature: { id: features[1]?.id },
    });
    expect((await api.get(path)).body.features[0].multiplier).toBe(7.5);
    expect((await api.put(`${path}/${features[2]?.id}`, { multiplier: 2 })).status).toBe(404);
    expect((await api.put(`${path}/${features[1]?.id}`, {})).status).toBe(400);
    expect((await api.put(`${path}/${features[1]?.id}`, { multiplier: -1 })).status).toBe(400);
  });

  test('DELETE removes only the assignment; the feature stays in the project', async () => {
    const plan = await makePlan(api, slug, { features: [{ featureId: features[3]?.id }] });
    const path = `${plansPath()}/${plan.id}/features`;
    const response = await api.delete(`${path}?featureId=${features[3]?.id}`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ success: true });
    expect((await api.get(path)).body.features).toEqual([]);
    const projectFeatures = (await api.get(`/api/v1/projects/${slug}/features`)).body.features;
    expect(projectFeatures.map((f: { id: number }) => f.id)).toContain(features[3]?.id);
    expect((await api.delete(`${path}?featureId=${features[3]?.id}`)).status).toBe(404);
  });

  test.each([
    [''],
    ['?featureId='],
    ['?featureId=abc'],
    ['?featureId=0'],
    ['?featureId=1.5'],
    ['?featureId=1&featureId=2'],
  ])('DELETE with query %j is 400', async (query) => {
    const plan = await makePlan(api, slug);
    const response = await api.delete(`${plansPath()}/${plan.id}/features${query}`);
    expect(response.status).toBe(400);
    expect(response.body.error.details[0].path).toBe('featureId');
  });

  test('DELETE on an unknown plan or project is 404', async () => {
    expect((await api.delete(`${plansPath()}/999999999/features?featureId=1`)).status).toBe(404);
    const missingProject = await api.delete('/api/v1/projects/nope-nope/plans/1/features?featureId=1');
    expect(missingProject.status).toBe(404);
    expect(missingProject.body.error.message).toContain('Project');
  });
});
