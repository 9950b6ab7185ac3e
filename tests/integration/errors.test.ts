import { beforeAll, describe, expect, test } from 'vitest';
import { type ApiClient, newOwner, useLocalServer } from '../fixtures/api.ts';
import { makeFeature, makePlan, makeProject } from '../fixtures/factories.ts';

const server = useLocalServer();
let api: ApiClient;
let slug: string;
let planId: number;
let featureId: number;

const errorShape = {
  error: expect.objectContaining({ code: expect.stringMatching(/^[a-z_]+$/), message: expect.any(String) }),
};

beforeAll(async () => {
  const owner = await newOwner('errors');
  api = server.client(owner.writeKey);
  slug = (await makeProject(api)).slug;
  featureId = (await makeFeature(api, slug)).id;
  planId = (await makePlan(api, slug)).id;
});

describe("interface.md's Errors table, row by row", () => {
  test('400: invalid values on update project, update feature, update plan', async () => {
    for (const [path, body] of [
      [`/api/v1/projects/${slug}`, { name: 'x'.repeat(101) }],
      [`/api/v1/projects/${slug}/features/${featureId}`, { basePrice: -1 }],
      [`/api/v1/projects/${slug}/plans/${planId}`, { freemiumDay: -1 }],
    ] as const) {
      const response = await api.put(path, body);
      expect(response.status, path).toBe(400);
      expect(response.body).toEqual(errorShape);
      expect(response.body.error.code).toBe('validation_error');
      expect(response.body.error.details.length).toBeGreaterThan(0);
    }
  });

  test('400: create plan without name or with invalid feature ids', async () => {
    expect((await api.post(`/api/v1/projects/${slug}/plans`, { basePrice: 1 })).status).toBe(400);
    expect(
      (await api.post(`/api/v1/projects/${slug}/plans`, { name: 'x', features: [{ featureId: 'a' }] })).status,
    ).toBe(400);
    expect((await api.post(`/api/v1/projects/${slug}/plans`, { name: 'x', features: 'a' })).status).toBe(400);
  });

  test('400: add features without featureId or with invalid ids; remove without featureId', async () => {
    const path = `/api/v1/projects/${slug}/plans/${planId}/features`;
    expect((await api.post(path, { multiplier: 1 })).status).toBe(400);
    expect((await api.post(path, { features: [{ featureId: null }] })).status).toBe(400);
    expect((await api.delete(path)).status).toBe(400);
  });

  test('404: project, plan, feature and assignment not found', async () => {
    const cases: Array<[string, string, unknown, string]> = [
      ['GET', '/api/v1/projects/missing-project', undefined, 'Project'],
      ['GET', `/api/v1/projects/${slug}/plans/999999999/features`, undefined, 'Plan'],
      ['PUT', `/api/v1/projects/${slug}/features/999999999`, { name: 'x' }, 'Feature'],
      ['POST', `/api/v1/projects/${slug}/plans`, { name: 'x', features: [{ featureId: 999_999_999 }] }, 'Feature'],
      ['POST', `/api/v1/projects/${slug}/plans/${planId}/features`, { featureId: 999_999_999 }, 'Feature'],
      ['DELETE', `/api/v1/projects/${slug}/plans/${planId}/features?featureId=${featureId}`, undefined, 'not assigned'],
      ['POST', `/api/v1/projects/${slug}/plans/999999999/duplicate`, undefined, 'Plan'],
    ];
    for (const [method, path, body, mentions] of cases) {
      const response = await api.request(method, path, { body });
      expect(response.status, `${method} ${path}`).toBe(404);
      expect(response.body.error.code).toBe('not_found');
      expect(response.body.error.message).toContain(mentions);
    }
  });
});

describe('requests no route serves', () => {
  test.each([
    ['GET', '/api'],
    ['GET', '/nowhere'],
    ['GET', '/api/v1'],
    ['GET', '/api/v1/projects/'],
    ['GET', '/api/v2/projects'],
    ['GET', '/api/share'],
    ['POST', '/api/v1/projects/x/unknown'],
  ])('%s %s is 404 not_found', async (method, path) => {
    const response = await api.request(method, path);
    expect(response.status).toBe(404);
    expect(response.body).toEqual(errorShape);
    expect(response.body.error.code).toBe('not_found');
  });

  test.each([
    ['PATCH', '/api/v1/projects', 'GET, HEAD, POST'],
    ['DELETE', '/api/v1/projects', 'GET, HEAD, POST'],
    ['POST', '/api/v1/projects/acme', 'GET, HEAD, PUT, DELETE'],
    ['GET', '/api/v1/projects/acme/plans/1/duplicate', 'POST'],
    ['POST', '/api/share/abcdefghijklmnopqrstuvwxyz', 'GET, HEAD, OPTIONS'],
  ])('%s %s is 405 with Allow: %s', async (method, path, allow) => {
    const response = await api.request(method, path);
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe(allow);
    expect(response.body.error.code).toBe('method_not_allowed');
  });
});

describe('bodies', () => {
  test('over 256 KiB is 413 payload_too_large', async () => {
    const response = await api.post('/api/v1/projects', { name: 'big', description: 'x'.repeat(300 * 1024) });
    expect(response.status).toBe(413);
    expect(response.body.error.code).toBe('payload_too_large');
  });

  test('malformed JSON, a wrong or missing Content-Type and a missing body are 400', async () => {
    const cases: Array<[string | undefined, Record<string, string>, string]> = [
      ['{"name": "x",}', { 'content-type': 'application/json' }, 'not valid JSON'],
      ['{"name": "x"}', { 'content-type': 'text/plain' }, 'Content-Type'],
      ['{"name": "x"}', {}, 'Content-Type'],
      [undefined, { 'content-type': 'application/json' }, 'required'],
      ['   ', { 'content-type': 'application/json' }, 'required'],
    ];
    for (const [rawBody, headers, mentions] of cases) {
      const response = await api.request('POST', '/api/v1/projects', { rawBody, headers });
      expect(response.status, rawBody).toBe(400);
      expect(response.body.error.code).toBe('validation_error');
      expect(response.body.error.message).toContain(mentions);
    }
  });

  test('Content-Type is matched case-insensitively and may carry a charset or a +json suffix', async () => {
    for (const contentType of ['Application/JSON', 'application/json; charset=utf-8', 'application/merge-patch+json']) {
      const response = await api.request('POST', '/api/v1/projects', {
        rawBody: JSON.stringify({ name: 'Typed' }),
        headers: { 'content-type': contentType },
      });
      expect(response.status, contentType).toBe(201);
    }
  });

  test('a number DynamoDB cannot store is 400, not 500', async () => {
    const response = await api.post(`/api/v1/projects/${slug}/features`, { name: 'Tiny', basePrice: 1e-200 });
    expect(response.status).toBe(400);
    expect(response.body.error.details[0].path).toBe('basePrice');
  });

  test('a JSON body that is not an object is 400', async () => {
    for (const body of [[], 'name', 42, null, true]) {
      const response = await api.post('/api/v1/projects', body);
      expect(response.status, JSON.stringify(body)).toBe(400);
    }
  });

  test('a body on a route that takes none is ignored', async () => {
    const project = await makeProject(api);
    const response = await api.request('DELETE', `/api/v1/projects/${project.slug}`, {
      rawBody: 'not json at all',
      headers: { 'content-type': 'text/plain' },
    });
    expect(response.status).toBe(200);
  });
});

describe('X-Request-Id', () => {
  test('is on every response, success or error, and unique', async () => {
    const responses = await Promise.all([
      api.get('/api/v1/projects'),
      api.get('/api/v1/projects/missing-project'),
      api.request('PATCH', '/api/v1/projects'),
      api.get('/nowhere'),
      server.client(null).get('/api/v1/projects'),
      api.post('/api/v1/projects', { name: '' }),
    ]);
    const ids = responses.map((r) => r.headers.get('x-request-id'));
    for (const id of ids) expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
