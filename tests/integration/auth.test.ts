import { beforeAll, describe, expect, test } from 'vitest';
import { createApiKey, revokeApiKey } from '#domain/keys/keys.ts';
import { type Route, routes } from '#functions/routes.ts';
import { routeKey } from '#shared/routes.ts';
import { type ApiClient, newOwner, useLocalServer } from '../fixtures/api.ts';
import { makeFeature, makePlan, makeProject } from '../fixtures/factories.ts';

const server = useLocalServer();

const v1Routes = routes.filter((route) => route.auth !== 'public');
const writeRoutes = v1Routes.filter((route) => route.auth === 'write');

/** A valid body for each write route, so only tenancy or permission can fail the request. */
const validBodies: Record<string, unknown> = {
  'POST /api/v1/projects': { name: 'Valid' },
  'PUT /api/v1/projects/{slug}': { name: 'Valid' },
  'DELETE /api/v1/projects/{slug}': undefined,
  'POST /api/v1/projects/{slug}/features': { name: 'Valid', basePrice: 1 },
  'PUT /api/v1/projects/{slug}/features/{featureId}': { name: 'Valid' },
  'DELETE /api/v1/projects/{slug}/features/{featureId}': undefined,
  'POST /api/v1/projects/{slug}/plans': { name: 'Valid' },
  'PUT /api/v1/projects/{slug}/plans/{planId}': { name: 'Valid' },
  'DELETE /api/v1/projects/{slug}/plans/{planId}': undefined,
  'POST /api/v1/projects/{slug}/plans/{planId}/duplicate': undefined,
  'POST /api/v1/projects/{slug}/plans/{planId}/features': { featureId: 1 },
  'DELETE /api/v1/projects/{slug}/plans/{planId}/features': undefined,
  'PUT /api/v1/projects/{slug}/plans/{planId}/features/{featureId}': { multiplier: 2 },
  'PUT /api/v1/projects/{slug}/customers/{customerId}': { planId: 1 },
  'DELETE /api/v1/projects/{slug}/customers/{customerId}': undefined,
  'POST /api/v1/projects/{slug}/events': { events: [{ eventId: 'e1', customerId: 'user_1', featureId: 1 }] },
  'POST /api/v1/projects/{slug}/plans/{planId}/migrate': { dryRun: true },
  'POST /api/v1/projects/{slug}/customers/{customerId}/entitlements/{featureId}/consume': { eventId: 'e2' },
  'POST /api/v1/projects/{slug}/webhook-endpoints': { url: 'https://example.com/hooks' },
  'DELETE /api/v1/projects/{slug}/webhook-endpoints/{endpointId}': undefined,
  'POST /api/v1/projects/{slug}/webhook-endpoints/{endpointId}/rotate-secret': undefined,
  'POST /api/v1/projects/{slug}/webhook-endpoints/{endpointId}/deliveries/{deliveryId}/retry': undefined,
  'POST /api/v1/projects/{slug}/experiments': {
    name: 'Valid',
    variants: [
      { key: 'a', weight: 1, plans: [] },
      { key: 'b', weight: 1, plans: [{ planId: 1, basePrice: 39 }] },
    ],
  },
  'PUT /api/v1/projects/{slug}/experiments/{experimentId}': { name: 'Valid' },
  'POST /api/v1/projects/{slug}/experiments/{experimentId}/start': undefined,
  'POST /api/v1/projects/{slug}/experiments/{experimentId}/stop': undefined,
  // A read route with a body: the tenancy check sends it too.
  'POST /api/v1/projects/{slug}/customers/{customerId}/subscription/preview': { planId: 1 },
  'POST /api/v1/projects/{slug}/customers/{customerId}/subscription': { planId: 1 },
  'POST /api/v1/projects/{slug}/customers/{customerId}/subscription/cancel': {},
  'POST /api/v1/projects/{slug}/customers/{customerId}/subscription/resume': undefined,
  'POST /api/v1/projects/{slug}/customers/{customerId}/portal': {},
  'POST /api/v1/projects/{slug}/customers/{customerId}/token': undefined,
};

interface Target {
  slug: string;
  planId: number;
  featureId: number;
}

function pathOf(route: Route, target: Target): string {
  const path = route.path
    .replace('{slug}', target.slug)
    .replace('{planId}', String(target.planId))
    .replace('{featureId}', String(target.featureId))
    .replace('{customerId}', 'user_1');
  return route.method === 'DELETE' && route.path.endsWith('/plans/{planId}/features')
    ? `${path}?featureId=${target.featureId}`
    : path;
}

let victim: { api: ApiClient; target: Target };

beforeAll(async () => {
  const owner = await newOwner('victim');
  const api = server.client(owner.writeKey);
  const project = await makeProject(api, { name: 'Victim' });
  const feature = await makeFeature(api, project.slug);
  const plan = await makePlan(api, project.slug, { features: [{ featureId: feature.id }] });
  victim = { api, target: { slug: project.slug, planId: plan.id, featureId: feature.id } };
});

test('every write route has a sample body here', () => {
  expect(writeRoutes.map(routeKey).filter((key) => !(key in validBodies))).toEqual([]);
});

describe('401 on every API v1 route', () => {
  const malformed = [
    ['no header', undefined],
    ['empty', ''],
    ['wrong scheme', 'Basic dXNlcjpwYXNz'],
    ['no scheme', 'ppk_abcdefghijkl_ABCDEFGHIJKLMNOPQRSTUVWXYZabcdef'],
    ['two spaces', 'Bearer  ppk_abcdefghijkl_ABCDEFGHIJKLMNOPQRSTUVWXYZabcdef'],
    ['not our format', 'Bearer sk_live_123'],
    ['unknown key id', 'Bearer ppk_abcdefghijkl_ABCDEFGHIJKLMNOPQRSTUVWXYZabcdef'],
  ] as const;

  test.each(v1Routes.map((r) => [routeKey(r), r] as const))('%s', async (_key, route) => {
    for (const [label, header] of malformed) {
      const response = await server.client(null).request(route.method, pathOf(route, victim.target), {
        headers: header === undefined ? {} : { authorization: header },
        body: validBodies[routeKey(route)],
      });
      expect(response.status, label).toBe(401);
      expect(response.body.error.code, label).toBe('unauthorized');
    }
  });

  test('a known key id with a wrong secret is 401', async () => {
    const owner = await newOwner('secret');
    const [, id] = owner.readKey.split('_');
    const forged = `ppk_${id}_${'A'.repeat(32)}`;
    expect((await server.client(forged).get('/api/v1/projects')).status).toBe(401);
  });

  test('the scheme is case-insensitive', async () => {
    const owner = await newOwner('scheme');
    const response = await server
      .client(null)
      .get('/api/v1/projects', { headers: { authorization: `bEaReR ${owner.readKey}` } });
    expect(response.status).toBe(200);
  });

  test('revoking twice keeps the first revocation time', async () => {
    const key = await createApiKey({ ownerId: 'revocation-owner', permission: 'read' });
    const first = await revokeApiKey(key.id);
    await new Promise((resolve) => setTimeout(resolve, 5));
    const second = await revokeApiKey(key.id);
    expect(second.revokedAt).toBe(first.revokedAt);
  });

  test('a revoked key is 401 from the next request on', async () => {
    const key = await createApiKey({ ownerId: 'revocation-owner', permission: 'read_write' });
    await revokeApiKey(key.id);
    const response = await server.client(key.key).get('/api/v1/projects');
    expect(response.status).toBe(401);
  });
});

describe('403 for a read key on every write route, whatever the body', () => {
  test.each(writeRoutes.map((r) => [routeKey(r), r] as const))('%s', async (_key, route) => {
    const owner = await newOwner('reader');
    const reader = server.client(owner.readKey);
    for (const body of [validBodies[routeKey(route)], { name: 123 }, undefined]) {
      const response = await reader.request(route.method, pathOf(route, victim.target), { body });
      expect(response.status).toBe(403);
      expect(response.body.error.code).toBe('forbidden');
    }
    const malformed = await reader.request(route.method, pathOf(route, victim.target), {
      rawBody: '{oops',
      headers: { 'content-type': 'application/json' },
    });
    expect(malformed.status).toBe(403);
  });

  test('read keys can read', async () => {
    const owner = await newOwner('reads');
    const project = await makeProject(server.client(owner.writeKey));
    const reader = server.client(owner.readKey);
    expect((await reader.get('/api/v1/projects')).status).toBe(200);
    expect((await reader.get(`/api/v1/projects/${project.slug}`)).status).toBe(200);
  });
});

describe('tenancy: another owner never sees or changes a project that is not theirs', () => {
  const projectScoped = v1Routes.filter((route) => route.path.includes('{slug}'));

  test.each(projectScoped.map((r) => [routeKey(r), r] as const))('%s is 404', async (_key, route) => {
    const intruder = await newOwner('intruder');
    const response = await server
      .client(intruder.writeKey)
      .request(route.method, pathOf(route, victim.target), { body: validBodies[routeKey(route)] });
    expect(response.status).toBe(404);
    expect(response.body.error.code).toBe('not_found');
    expect(response.text).not.toContain('Victim');
  });

  test("the victim's project is unchanged after all of that", async () => {
    const project = (await victim.api.get(`/api/v1/projects/${victim.target.slug}`)).body;
    expect(project.name).toBe('Victim');
    expect(project.features.map((f: { id: number }) => f.id)).toEqual([victim.target.featureId]);
    expect(
      project.pricingPlans.map((p: { id: number; planFeatures: unknown[] }) => [p.id, p.planFeatures.length]),
    ).toEqual([[victim.target.planId, 1]]);
  });

  test("another owner's project list does not include it", async () => {
    const intruder = await newOwner('lister');
    await makeProject(server.client(intruder.writeKey), { name: 'Mine' });
    const listed = (await server.client(intruder.readKey).get('/api/v1/projects')).body.projects;
    expect(listed.map((p: { name: string }) => p.name)).toEqual(['Mine']);
  });
});
