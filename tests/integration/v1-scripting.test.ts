/**
 * Scripting v1 safely (decisions.md "Errors" and "Scripting v1 safely"), over real HTTP:
 * strict bodies that say what was meant, GET-edit-PUT round trips, pages of the project
 * list, and the two answers about the service itself (`GET /`, `GET /health`).
 */
import { beforeAll, describe, expect, test } from 'vitest';
import { composeFromEnvironment } from '#dev/local-server.ts';
import { encodeCursor } from '#domain/pages.ts';
import { groupActions } from '#functions/action-registry.ts';
import { routes } from '#functions/routes.ts';
import { createGroupHandler } from '#http/group-handler.ts';
import { compose } from '#shared/composition.ts';
import { runtimeConfig } from '#shared/config.ts';
import { type ApiClient, newOwner, useLocalServer } from '../fixtures/api.ts';
import { httpEvent, lambdaContext } from '../fixtures/events.ts';
import { makeFeature, makePlan, makeProject } from '../fixtures/factories.ts';

const server = useLocalServer();
let api: ApiClient;
let slug: string;

beforeAll(async () => {
  const owner = await newOwner('scripting');
  api = server.client(owner.writeKey);
  ({ slug } = await makeProject(api));
});

describe('strict bodies', () => {
  test('a typo is a 400 that names it and what was meant, and changes nothing', async () => {
    const plan = await makePlan(api, slug);
    const response = await api.put(`/api/v1/projects/${slug}/plans/${plan.id}`, { isPoplar: true, name: 'Renamed' });
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('validation_error');
    expect(response.body.error.details).toEqual([
      { path: 'isPoplar', message: 'unknown field "isPoplar"; did you mean "isPopular"?' },
    ]);
    expect(response.body.error.message).toBe(
      'Invalid request body: unknown field "isPoplar"; did you mean "isPopular"?',
    );
    const after = await api.get(`/api/v1/projects/${slug}/plans`);
    const stored = after.body.plans.find((p: { id: number }) => p.id === plan.id);
    expect(stored).toMatchObject({ name: plan.name, isPopular: false });
  });

  test('a typo inside the theme is named with its path', async () => {
    const response = await api.put(`/api/v1/projects/${slug}`, { theme: { primaryColour: '#000000' } });
    expect(response.status).toBe(400);
    expect(response.body.error.details).toEqual([
      { path: 'theme.primaryColour', message: 'unknown field "primaryColour"; did you mean "primaryColor"?' },
    ]);
  });

  test('a missing name "is required"; annualDiscount: 2 is one message', async () => {
    const missing = await api.post(`/api/v1/projects/${slug}/features`, { basePrice: 1 });
    expect(missing.status).toBe(400);
    expect(missing.body.error.details).toEqual([{ path: 'name', message: 'is required' }]);
    const discount = await api.put(`/api/v1/projects/${slug}`, { annualDiscount: 2 });
    expect(discount.body.error.details).toEqual([
      { path: 'annualDiscount', message: 'must be below 1 (0.2 means 20% off)' },
    ]);
  });

  test('public checkout bodies are strict too', async () => {
    const response = await server
      .client()
      .post('/api/payments/checkout', { shareId: 'x'.repeat(26), planId: 1, seat: 2 });
    expect(response.status).toBe(400);
    expect(response.body.error.details).toContainEqual({
      path: 'seat',
      message: 'unknown field "seat"; did you mean "seats"?',
    });
  });
});

describe('GET-edit-PUT round trips', () => {
  test('a project: every field GET returns goes back, and a theme edit through themeSettings lands', async () => {
    const got = (await api.get(`/api/v1/projects/${slug}`)).body;
    got.name = 'Edited by a script';
    got.themeSettings.primaryColor = '#123456';
    const put = await api.put(`/api/v1/projects/${slug}`, got);
    expect(put.status, put.text).toBe(200);
    expect(put.body.name).toBe('Edited by a script');
    expect(put.body.themeSettings.primaryColor).toBe('#123456');
  });

  test('a feature and a plan, as GET returns them', async () => {
    const feature = await makeFeature(api, slug, { isCountable: true, usageCount: 3 });
    const { features } = (await api.get(`/api/v1/projects/${slug}/features`)).body;
    const gotFeature = features.find((f: { id: number }) => f.id === feature.id);
    const featurePut = await api.put(`/api/v1/projects/${slug}/features/${feature.id}`, {
      ...gotFeature,
      basePrice: 42,
    });
    expect(featurePut.status, featurePut.text).toBe(200);
    expect(featurePut.body).toMatchObject({ basePrice: 42, countableData: { usageCount: 3 } });

    const plan = await makePlan(api, slug, { features: [{ featureId: feature.id }] });
    const { plans } = (await api.get(`/api/v1/projects/${slug}/plans`)).body;
    const gotPlan = plans.find((p: { id: number }) => p.id === plan.id);
    const planPut = await api.put(`/api/v1/projects/${slug}/plans/${plan.id}`, { ...gotPlan, isPopular: true });
    expect(planPut.status, planPut.text).toBe(200);
    expect(planPut.body).toMatchObject({ isPopular: true, planFeatures: [{ feature: { id: feature.id } }] });
  });
});

describe('pages of the project list', () => {
  let pager: ApiClient;
  let all: { id: number; slug: string }[];

  beforeAll(async () => {
    const owner = await newOwner('pages');
    pager = server.client(owner.writeKey);
    for (let i = 0; i < 7; i++) await makeProject(pager, { name: `Paged ${i}` });
    all = (await pager.get('/api/v1/projects')).body.projects;
  });

  test('without limit, every project and no cursor (interface.md)', () => {
    expect(all).toHaveLength(7);
  });

  test('limit=3 walks 3, 3, 1 in id order; the last page says nextCursor: null', async () => {
    const seen: number[] = [];
    const sizes: number[] = [];
    let cursor: string | null = null;
    do {
      const query: string = cursor ? `?limit=3&cursor=${encodeURIComponent(cursor)}` : '?limit=3';
      const page = await pager.get(`/api/v1/projects${query}`);
      expect(page.status, page.text).toBe(200);
      sizes.push(page.body.projects.length);
      seen.push(...page.body.projects.map((p: { id: number }) => p.id));
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(sizes).toEqual([3, 3, 1]);
    expect(seen).toEqual(all.map((p) => p.id));
  });

  test('a page that ends exactly at the last project has nextCursor: null', async () => {
    const page = await pager.get('/api/v1/projects?limit=7');
    expect(page.body.projects).toHaveLength(7);
    expect(page.body.nextCursor).toBeNull();
  });

  test('a deleted project is skipped and the page is still full', async () => {
    const owner = await newOwner('pages-deleting');
    const client = server.client(owner.writeKey);
    const made = [];
    for (let i = 0; i < 4; i++) made.push(await makeProject(client, { name: `D ${i}` }));
    expect((await client.delete(`/api/v1/projects/${made[1].slug}`)).status).toBe(200);
    const page = await client.get('/api/v1/projects?limit=2');
    expect(page.body.projects.map((p: { slug: string }) => p.slug)).toEqual([made[0].slug, made[2].slug]);
    const next = await client.get(`/api/v1/projects?limit=2&cursor=${page.body.nextCursor}`);
    expect(next.body.projects.map((p: { slug: string }) => p.slug)).toEqual([made[3].slug]);
    expect(next.body.nextCursor).toBeNull();
  });

  test.each([
    ['limit=0'],
    ['limit=101'],
    ['limit=abc'],
    ['limit=1.5'],
    ['cursor='],
    ['cursor=not-a-cursor'],
    [`cursor=${Buffer.from('{"after":-1}').toString('base64url')}`],
    [`cursor=${Buffer.from('{"after":1,"pk":"x"}').toString('base64url')}`],
    [`cursor=${'A'.repeat(500)}`],
  ])('?%s is a 400 validation_error', async (query) => {
    const response = await pager.get(`/api/v1/projects?${query}`);
    expect(response.status, response.text).toBe(400);
    expect(response.body.error.code).toBe('validation_error');
  });

  test("another owner's cursor shows only the caller's own projects", async () => {
    const other = await newOwner('pages-other');
    const page = await server.client(other.readKey).get(`/api/v1/projects?limit=5&cursor=${encodeCursor(1)}`);
    expect(page.status).toBe(200);
    expect(page.body).toEqual({ projects: [], nextCursor: null });
  });
});

describe('the service itself', () => {
  test('GET / names the API and its document', async () => {
    const response = await server.client().get('/');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ name: 'Pricing plan service API', docs: '/openapi.json' });
  });

  test('GET /health is 200 while the table answers', async () => {
    const response = await server.client().get('/health');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ status: 'ok' });
    expect(response.headers.get('cache-control')).toBe('no-store');
  });

  test('GET /health is 503 when the table does not answer', async () => {
    const broken = compose({ ...runtimeConfig(), TABLE_NAME: 'no-such-table' }, {});
    try {
      const handler = createGroupHandler(groupActions.share, broken, routes);
      const response = await handler(httpEvent('GET', '/health'), lambdaContext());
      expect(response.statusCode).toBe(503);
      expect(JSON.parse(String(response.body))).toEqual({ status: 'unavailable' });
    } finally {
      composeFromEnvironment();
    }
  });
});
