import { beforeAll, describe, expect, test } from 'vitest';
import { FeatureView } from '#domain/features/schemas.ts';
import { type ApiClient, newOwner, useLocalServer } from '../fixtures/api.ts';
import { makeFeature, makePlan, makeProject } from '../fixtures/factories.ts';
import { itemsOfOwner, storedAssignments } from '../fixtures/table.ts';

const server = useLocalServer();
let api: ApiClient;
let ownerId: string;
let slug: string;

beforeAll(async () => {
  const owner = await newOwner('features');
  ownerId = owner.ownerId;
  api = server.client(owner.writeKey);
  slug = (await makeProject(api)).slug;
});

describe('POST /api/v1/projects/{slug}/features', () => {
  test('creates with the defaults of decisions.md: 201, Standart, not countable, countableData null', async () => {
    const response = await api.post(`/api/v1/projects/${slug}/features`, { name: 'SSO', basePrice: 0 });
    expect(response.status).toBe(201);
    const feature = FeatureView().parse(response.body);
    expect(feature).toMatchObject({
      name: 'SSO',
      description: '',
      basePrice: 0,
      featureType: 'Standart',
      isCountable: false,
      countableData: null,
    });
  });

  test('countable fields travel flat in and come back inside countableData', async () => {
    const response = await api.post(`/api/v1/projects/${slug}/features`, {
      name: 'API calls',
      basePrice: 5,
      featureType: 'Usage Based',
      isCountable: true,
      usageCount: 10_000,
      condition: 'Up to',
      countPrice: 0.002,
      eventAggregationMethod: 'sum',
    });
    expect(response.status).toBe(201);
    expect(response.body.countableData).toEqual({
      usageCount: 10_000,
      condition: 'Up to',
      countPrice: 0.002,
      eventAggregationMethod: 'sum',
    });
    expect(response.body).not.toHaveProperty('usageCount');
  });

  test('countable defaults: usageCount 0, condition "Up to", countPrice 0, method count', async () => {
    const feature = await makeFeature(api, slug, { isCountable: true });
    expect(feature.countableData).toEqual({
      usageCount: 0,
      condition: 'Up to',
      countPrice: 0,
      eventAggregationMethod: 'count',
    });
  });

  test('"Standard" is accepted as another spelling; responses say "Standart"', async () => {
    const feature = await makeFeature(api, slug, { featureType: 'Standard' });
    expect(feature.featureType).toBe('Standart');
  });

  test.each([
    [{ basePrice: 1 }, 'name'],
    [{ name: 'x' }, 'basePrice'],
    [{ name: 'x', basePrice: -1 }, 'basePrice'],
    [{ name: 'x', basePrice: '1' }, 'basePrice'],
    [{ name: 'x', basePrice: 1, featureType: 'Premium' }, 'featureType'],
    [{ name: 'x', basePrice: 1, featureType: 'standart' }, 'featureType'],
    [{ name: 'x', basePrice: 1, usageCount: -1 }, 'usageCount'],
    [{ name: 'x', basePrice: 1, countPrice: -0.5 }, 'countPrice'],
    [{ name: 'x', basePrice: 1, condition: 'c'.repeat(51) }, 'condition'],
    [{ name: 'x', basePrice: 1, eventAggregationMethod: 'avg' }, 'eventAggregationMethod'],
    [{ name: 'x', basePrice: 1, description: 'd'.repeat(1001) }, 'description'],
    [{ name: 'x'.repeat(101), basePrice: 1 }, 'name'],
    [{ name: 'x', basePrice: 1, isCountable: 1 }, 'isCountable'],
  ])('rejects %j with 400 naming %s', async (body, path) => {
    const response = await api.post(`/api/v1/projects/${slug}/features`, body);
    expect(response.status).toBe(400);
    expect(response.body.error.details).toContainEqual(expect.objectContaining({ path }));
  });

  test('an unknown project is 404', async () => {
    const response = await api.post('/api/v1/projects/nope-nope/features', { name: 'x', basePrice: 1 });
    expect(response.status).toBe(404);
  });

  test('a project holds at most 200 features: the 201st is 409 limit_exceeded and _count stays exact', async () => {
    const project = await makeProject(api);
    const results = [];
    for (let batch = 0; batch < 10; batch++) {
      results.push(
        ...(await Promise.all(
          Array.from({ length: 21 }, (_, i) =>
            api.post(`/api/v1/projects/${project.slug}/features`, { name: `F${batch}-${i}`, basePrice: 1 }),
          ),
        )),
      );
    }
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(200);
    expect(statuses.filter((s) => s === 409)).toHaveLength(10);
    expect(results.find((r) => r.status === 409)?.body.error.code).toBe('limit_exceeded');
    const listed = (await api.get('/api/v1/projects')).body.projects.find(
      (p: { slug: string }) => p.slug === project.slug,
    );
    expect(listed._count.features).toBe(200);
    expect((await api.get(`/api/v1/projects/${project.slug}/features`)).body.features).toHaveLength(200);
  });
});

describe('GET /api/v1/projects/{slug}/features', () => {
  test('lists every feature in id order', async () => {
    const project = await makeProject(api);
    const a = await makeFeature(api, project.slug);
    const b = await makeFeature(api, project.slug, { isCountable: true });
    const response = await api.get(`/api/v1/projects/${project.slug}/features`);
    expect(response.status).toBe(200);
    expect(response.body.features.map((f: unknown) => FeatureView().parse(f).id)).toEqual([a.id, b.id]);
  });

  test('an unknown project is 404', async () => {
    expect((await api.get('/api/v1/projects/nope-nope/features')).status).toBe(404);
  });
});

describe('PUT /api/v1/projects/{slug}/features/{featureId}', () => {
  test('is partial and returns the full feature', async () => {
    const feature = await makeFeature(api, slug, { description: 'keep', basePrice: 3 });
    const response = await api.put(`/api/v1/projects/${slug}/features/${feature.id}`, { name: 'Renamed' });
    expect(response.status).toBe(200);
    expect(FeatureView().parse(response.body)).toMatchObject({ name: 'Renamed', description: 'keep', basePrice: 3 });
  });

  test('flat countable fields update countableData; turning isCountable off gives null, on restores them', async () => {
    const feature = await makeFeature(api, slug, { isCountable: true, usageCount: 5 });
    const path = `/api/v1/projects/${slug}/features/${feature.id}`;
    expect((await api.put(path, { usageCount: 50, condition: 'Unlimited' })).body.countableData).toMatchObject({
      usageCount: 50,
      condition: 'Unlimited',
    });
    expect((await api.put(path, { isCountable: false })).body.countableData).toBeNull();
    expect((await api.put(path, { isCountable: true })).body.countableData).toMatchObject({ usageCount: 50 });
  });

  test('a negative basePrice is 400 and changes nothing', async () => {
    const feature = await makeFeature(api, slug, { basePrice: 7 });
    const response = await api.put(`/api/v1/projects/${slug}/features/${feature.id}`, { basePrice: -1, name: 'No' });
    expect(response.status).toBe(400);
    const features = (await api.get(`/api/v1/projects/${slug}/features`)).body.features;
    expect(features.find((f: { id: number }) => f.id === feature.id)).toMatchObject({
      basePrice: 7,
      name: feature.name,
    });
  });

  test('an unknown feature, a non-numeric id and an unknown project are 404', async () => {
    const feature = await makeFeature(api, slug);
    expect((await api.put(`/api/v1/projects/${slug}/features/999999999`, { name: 'x' })).status).toBe(404);
    expect((await api.put(`/api/v1/projects/${slug}/features/abc`, { name: 'x' })).status).toBe(404);
    expect((await api.put(`/api/v1/projects/${slug}/features/0`, { name: 'x' })).status).toBe(404);
    const wrongProject = await api.put(`/api/v1/projects/nope-nope/features/${feature.id}`, { name: 'x' });
    expect(wrongProject.status).toBe(404);
    expect(wrongProject.body.error.message).toContain('Project');
  });

  test('an empty body returns the feature unchanged', async () => {
    const feature = await makeFeature(api, slug);
    const response = await api.put(`/api/v1/projects/${slug}/features/${feature.id}`, {});
    expect(response.status).toBe(200);
    expect(response.body).toEqual(feature);
  });
});

describe('DELETE /api/v1/projects/{slug}/features/{featureId}', () => {
  test('removes the feature from every plan, leaves the plans, and uncounts it', async () => {
    const owner = await newOwner('feature-delete');
    const mine = server.client(owner.writeKey);
    const project = await makeProject(mine);
    const doomed = await makeFeature(mine, project.slug);
    const kept = await makeFeature(mine, project.slug);
    const plans = [];
    for (let i = 0; i < 3; i++) {
      plans.push(await makePlan(mine, project.slug, { features: [{ featureId: doomed.id }, { featureId: kept.id }] }));
    }
    const response = await mine.delete(`/api/v1/projects/${project.slug}/features/${doomed.id}`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ success: true });

    const after = (await mine.get(`/api/v1/projects/${project.slug}`)).body;
    expect(after.features.map((f: { id: number }) => f.id)).toEqual([kept.id]);
    expect(after.pricingPlans).toHaveLength(3);
    for (const plan of after.pricingPlans) {
      expect(plan.planFeatures.map((pf: { feature: { id: number } }) => pf.feature.id)).toEqual([kept.id]);
    }
    const assignments = storedAssignments(await itemsOfOwner(owner.ownerId));
    expect(assignments.map((a) => a.featureId)).toEqual([kept.id, kept.id, kept.id]);
    const listed = (await mine.get('/api/v1/projects')).body.projects[0];
    expect(listed._count).toEqual({ features: 1, pricingPlans: 3 });
  });

  test('deleting twice is 404 the second time; unknown project 404', async () => {
    const feature = await makeFeature(api, slug);
    expect((await api.delete(`/api/v1/projects/${slug}/features/${feature.id}`)).status).toBe(200);
    expect((await api.delete(`/api/v1/projects/${slug}/features/${feature.id}`)).status).toBe(404);
    expect((await api.delete(`/api/v1/projects/nope-nope/features/${feature.id}`)).status).toBe(404);
    expect((await api.delete(`/api/v1/projects/${slug}/features/-3`)).status).toBe(404);
  });

  test('ownerId sanity: the fixture owner still has its items', async () => {
    expect((await itemsOfOwner(ownerId)).length).toBeGreaterThan(0);
  });
});
