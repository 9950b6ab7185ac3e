import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { routes } from '#functions/routes.ts';
import { shareRoutes } from '#functions/share/routes.ts';
import { defineGroup, routesIn } from '#http/action.ts';
import { createGroupHandler } from '#http/group-handler.ts';
import { compose } from '#shared/composition.ts';
import { runtimeConfig } from '#shared/config.ts';
import { setLogSink } from '#shared/logger.ts';
import { type ApiClient, newOwner, useLocalServer } from '../fixtures/api.ts';
import { httpEvent, lambdaContext } from '../fixtures/events.ts';
import { makeFeature, makePlan, makeProject } from '../fixtures/factories.ts';

// This file reads the log, so it must not be silenced. Hoisted above the imports: the
// handlers parse their configuration when they are created.
vi.hoisted(() => {
  process.env.LOG_LEVEL = 'info';
});

const server = useLocalServer();
const lines: Array<Record<string, unknown>> = [];
const raw: string[] = [];
let restoreSink: () => void;
let api: ApiClient;
let writeKey: string;
let project: { slug: string; shareId: string };
let planId: number;

beforeAll(async () => {
  restoreSink = setLogSink((line) => {
    raw.push(line);
    lines.push(JSON.parse(line));
  });
  const owner = await newOwner('logging');
  writeKey = owner.writeKey;
  api = server.client(owner.writeKey);
  project = await makeProject(api);
  const feature = await makeFeature(api, project.slug);
  planId = (await makePlan(api, project.slug, { features: [{ featureId: feature.id }] })).id;
});

afterAll(() => restoreSink());

const lineFor = (requestId: string | null) => lines.filter((line) => line.requestId === requestId);

describe('the request log', () => {
  test('writes exactly one JSON line per request with id, method, route, status, duration and DynamoDB count', async () => {
    const response = await api.get(`/api/v1/projects/${project.slug}`);
    const [line, ...more] = lineFor(response.headers.get('x-request-id'));
    expect(more).toEqual([]);
    expect(line).toMatchObject({
      level: 'info',
      msg: 'request',
      group: 'projects',
      method: 'GET',
      route: 'GET /api/v1/projects/{slug}',
      status: 200,
      durationMs: expect.any(Number),
      dynamoRequests: expect.any(Number),
    });
    expect(typeof line?.time).toBe('string');
  });

  test('names the key id and owner of a v1 request, the code of an error, and the path no route matched', async () => {
    const [, keyId] = writeKey.split('_');
    const ok = await api.get(`/api/v1/projects/${project.slug}`);
    expect(lineFor(ok.headers.get('x-request-id'))[0]).toMatchObject({ keyId, ownerId: expect.any(String) });
    expect(lineFor(ok.headers.get('x-request-id'))[0]).not.toHaveProperty('errorCode');

    const missing = await api.get('/api/v1/projects/no-such-project');
    expect(lineFor(missing.headers.get('x-request-id'))[0]).toMatchObject({
      status: 404,
      errorCode: 'not_found',
      keyId,
    });
    expect(lineFor(missing.headers.get('x-request-id'))[0]).not.toHaveProperty('path');

    const refused = await server.client(`${writeKey}x`).get('/api/v1/projects');
    expect(lineFor(refused.headers.get('x-request-id'))[0]).toMatchObject({ status: 401, errorCode: 'unauthorized' });
    expect(lineFor(refused.headers.get('x-request-id'))[0]).not.toHaveProperty('keyId');

    const unmatched = await api.get('/api/v1/no/such/route');
    expect(lineFor(unmatched.headers.get('x-request-id'))[0]).toMatchObject({
      status: 404,
      errorCode: 'not_found',
      path: '/api/v1/no/such/route',
    });
  });

  test('never holds a key, a secret or a body', async () => {
    const marker = 'BODY-MARKER-7f3a';
    await api.post('/api/v1/projects', { name: marker, description: marker });
    await api.post('/api/v1/projects', { name: '', description: marker });
    await api.request('POST', '/api/v1/projects', {
      rawBody: `{"x":"${marker}"`,
      headers: { 'content-type': 'application/json' },
    });
    await server.client(`${writeKey}x`).get('/api/v1/projects');
    const all = raw.join('\n');
    const [, keyId, secret] = writeKey.split('_');
    expect(all).not.toContain(marker);
    expect(all).not.toContain(secret);
    expect(all).not.toContain(writeKey);
    expect(all).not.toMatch(/authorization/i);
    expect(keyId).toBeTruthy();
  });

  test.each([
    ['GET /api/v1/projects', () => '/api/v1/projects'],
    ['GET /api/v1/projects/{slug}', () => `/api/v1/projects/${project.slug}`],
    ['GET /api/v1/projects/{slug}/features', () => `/api/v1/projects/${project.slug}/features`],
    ['GET /api/v1/projects/{slug}/plans', () => `/api/v1/projects/${project.slug}/plans`],
    ['GET /api/share/{shareId}', () => `/api/share/${project.shareId}`],
  ])('%s makes one DynamoDB request on a warm key cache', async (_route, path) => {
    await api.get(path()); // warms the key cache
    const response = await api.get(path());
    expect(response.status).toBe(200);
    expect(lineFor(response.headers.get('x-request-id'))[0]?.dynamoRequests).toBe(1);
  });

  test('GET /api/v1/projects/{slug}/plans/{planId}/features makes two (the feature range and the plan, in one round trip)', async () => {
    const path = `/api/v1/projects/${project.slug}/plans/${planId}/features`;
    await api.get(path); // warms the key cache
    const response = await api.get(path);
    expect(response.status).toBe(200);
    expect(lineFor(response.headers.get('x-request-id'))[0]?.dynamoRequests).toBe(2);
  });

  test('a cold key costs at most one more request', async () => {
    const owner = await newOwner('cold');
    const response = await server.client(owner.readKey).get('/api/v1/projects');
    expect(lineFor(response.headers.get('x-request-id'))[0]?.dynamoRequests).toBe(2);
  });
});

describe('an unexpected error', () => {
  test('is a 500 internal_error naming the request id, exposing nothing, logged with its cause', async () => {
    const route = routesIn(shareRoutes);
    const failing = defineGroup(shareRoutes, [
      route('GET /api/share/{shareId}', {
        run: async () => {
          throw new Error('database password is hunter2');
        },
      }),
      route('OPTIONS /api/share/{shareId}', { run: async () => ({ status: 204 }) }),
      route('GET /widget.js', { run: async () => ({ status: 204 }) }),
      route('GET /demo/{shareId}', { run: async () => ({ status: 204 }) }),
      route('GET /', { run: async () => ({ status: 204 }) }),
      route('GET /health', { run: async () => ({ status: 204 }) }),
    ]);
    const handler = createGroupHandler(failing, compose(runtimeConfig(), {}), routes);
    const event = httpEvent('GET', '/api/share/{shareId}', {
      path: '/api/share/abc',
      pathParameters: { shareId: 'abc' },
    });
    const response = await handler(event, lambdaContext());
    const requestId = event.requestContext.requestId;
    expect(response.statusCode).toBe(500);
    const body = JSON.parse(String(response.body));
    expect(body).toEqual({ error: { code: 'internal_error', message: expect.stringContaining(requestId) } });
    expect(String(response.body)).not.toContain('hunter2');
    expect(response.headers['x-request-id']).toBe(requestId);
    expect(response.headers['x-content-type-options']).toBe('nosniff');
    expect(response.headers['access-control-allow-origin']).toBe('*');
    const [line] = lineFor(requestId);
    expect(line).toMatchObject({
      level: 'error',
      status: 500,
      error: { name: 'Error', message: 'database password is hunter2' },
    });
  });
});
