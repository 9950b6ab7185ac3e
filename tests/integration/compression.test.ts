/**
 * Compressed answers (docs/decisions.md, "Compressed answers"), on every route of the table,
 * as Lambda answers them (base64 with `isBase64Encoded`) and over the local server's HTTP:
 * a body over 1 KB goes out in the coding the request accepts (br or gzip), smaller, and
 * inflates to the identity answer; `Vary: Accept-Encoding` on every answer with a body or a
 * 304; a HEAD says the coded length; a 304 answers a tag of either coding.
 */
import { request as httpRequest } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { beforeAll, describe, expect, test } from 'vitest';
import { composeFromEnvironment } from '#dev/local-server.ts';
import { groupActions } from '#functions/action-registry.ts';
import { type RouteKey, routes } from '#functions/routes.ts';
import { COMPRESS_OVER_BYTES, negotiate } from '#http/compression.ts';
import { createGroupHandler, type LambdaHandler } from '#http/group-handler.ts';
import type { LambdaResult } from '#http/responses.ts';
import type { Group } from '#shared/routes.ts';
import { type ApiClient, newOwner, useLocalServer } from '../fixtures/api.ts';
import { httpEvent, lambdaContext } from '../fixtures/events.ts';
import { makeFeature, makePlan, makeProject } from '../fixtures/factories.ts';

const server = useLocalServer();
const app = composeFromEnvironment();
const handlers = Object.fromEntries(
  (Object.keys(groupActions) as Group[]).map((group) => [
    group,
    createGroupHandler(groupActions[group] as never, app, routes),
  ]),
) as Record<Group, LambdaHandler>;

let api: ApiClient;
let key: string;
let slug: string;
let shareId: string;
let planId: number;
let featureIds: number[];

beforeAll(async () => {
  const owner = await newOwner('compression');
  key = owner.writeKey;
  api = server.client(owner.writeKey);
  for (let i = 0; i < 3; i++) await makeProject(api, { description: `Another project ${'of words '.repeat(30)}` });
  ({ slug, shareId } = await makeProject(api, {
    description: 'A project with enough text to pass a kilobyte. '.repeat(10),
  }));
  featureIds = [];
  for (let i = 0; i < 8; i++) {
    featureIds.push((await makeFeature(api, slug, { description: `Feature ${i} ${'does things '.repeat(12)}` })).id);
  }
  planId = (await makePlan(api, slug, { features: featureIds.map((featureId) => ({ featureId })) })).id;
  expect((await api.put(`/api/v1/projects/${slug}/customers/c1`, { planId })).status).toBe(200);
}, 60_000);

interface Call {
  path: string;
  pathParameters?: Record<string, string>;
  body?: unknown;
}

const hooks = (rest: string, endpointId?: string): Call => ({
  path: `/api/v1/projects/${slug}/webhook-endpoints${rest}`,
  pathParameters: endpointId ? { slug, endpointId } : { slug },
});

const experiments = (rest: string, experimentId?: string): Call => ({
  path: `/api/v1/projects/${slug}/experiments${rest}`,
  pathParameters: experimentId ? { slug, experimentId } : { slug },
});

/** One request per route of the table: a route left out is a compile error. */
const calls: Record<RouteKey, () => Call> = {
  'GET /api/share/{shareId}': () => ({ path: `/api/share/${shareId}`, pathParameters: { shareId } }),
  'OPTIONS /api/share/{shareId}': () => ({ path: `/api/share/${shareId}`, pathParameters: { shareId } }),
  'GET /widget.js': () => ({ path: '/widget.js' }),
  'GET /demo/{shareId}': () => ({ path: `/demo/${shareId}`, pathParameters: { shareId } }),
  'GET /': () => ({ path: '/' }),
  'GET /health': () => ({ path: '/health' }),
  'POST /api/payments/checkout': () => ({ path: '/api/payments/checkout', body: { shareId, planId } }),
  'OPTIONS /api/payments/checkout': () => ({ path: '/api/payments/checkout' }),
  'POST /api/payments/checkout/custom': () => ({
    path: '/api/payments/checkout/custom',
    body: { shareId, features: [{ featureId: featureIds[0] }] },
  }),
  'OPTIONS /api/payments/checkout/custom': () => ({ path: '/api/payments/checkout/custom' }),
  'GET /api/payments/receipt': () => ({ path: '/api/payments/receipt' }),
  'OPTIONS /api/payments/receipt': () => ({ path: '/api/payments/receipt' }),
  'POST /api/payments/webhook/{shareId}': () => ({
    path: `/api/payments/webhook/${shareId}`,
    pathParameters: { shareId },
    body: { type: 'ping' },
  }),
  'GET /api/v1/projects': () => ({ path: '/api/v1/projects' }),
  'POST /api/v1/projects': () => ({ path: '/api/v1/projects', body: { name: 'Fresh' } }),
  'GET /api/v1/projects/{slug}': () => ({ path: `/api/v1/projects/${slug}`, pathParameters: { slug } }),
  'PUT /api/v1/projects/{slug}': () => ({ path: `/api/v1/projects/${slug}`, pathParameters: { slug }, body: {} }),
  'DELETE /api/v1/projects/{slug}': () => ({
    path: '/api/v1/projects/nothing-here',
    pathParameters: { slug: 'nothing-here' },
  }),
  'GET /api/v1/projects/{slug}/changes': () => ({ path: `/api/v1/projects/${slug}/changes`, pathParameters: { slug } }),
  'GET /api/v1/projects/{slug}/webhook-endpoints': () => hooks(''),
  'POST /api/v1/projects/{slug}/webhook-endpoints': () => ({ ...hooks(''), body: { url: 'https://example.com/h' } }),
  'DELETE /api/v1/projects/{slug}/webhook-endpoints/{endpointId}': () => hooks('/999999', '999999'),
  'POST /api/v1/projects/{slug}/webhook-endpoints/{endpointId}/rotate-secret': () =>
    hooks('/999999/rotate-secret', '999999'),
  'GET /api/v1/projects/{slug}/webhook-endpoints/{endpointId}/deliveries': () => hooks('/999999/deliveries', '999999'),
  'POST /api/v1/projects/{slug}/webhook-endpoints/{endpointId}/deliveries/{deliveryId}/retry': () => ({
    ...hooks('/999999/deliveries/dlv_x/retry', '999999'),
    pathParameters: { slug, endpointId: '999999', deliveryId: 'dlv_x' },
  }),
  'GET /api/v1/projects/{slug}/experiments': () => experiments(''),
  'POST /api/v1/projects/{slug}/experiments': () => ({ ...experiments(''), body: {} }),
  'GET /api/v1/projects/{slug}/experiments/{experimentId}': () => experiments('/999999', '999999'),
  'PUT /api/v1/projects/{slug}/experiments/{experimentId}': () => ({ ...experiments('/999999', '999999'), body: {} }),
  'POST /api/v1/projects/{slug}/experiments/{experimentId}/start': () => experiments('/999999/start', '999999'),
  'POST /api/v1/projects/{slug}/experiments/{experimentId}/stop': () => experiments('/999999/stop', '999999'),
  'GET /api/v1/projects/{slug}/experiments/{experimentId}/results': () => experiments('/999999/results', '999999'),
  'POST /api/share/{shareId}/views': () => ({
    path: `/api/share/${shareId}/views`,
    pathParameters: { shareId },
    body: { visitor: 'v1' },
  }),
  'OPTIONS /api/share/{shareId}/views': () => ({ path: `/api/share/${shareId}/views`, pathParameters: { shareId } }),
  'GET /api/v1/projects/{slug}/features': () => ({
    path: `/api/v1/projects/${slug}/features`,
    pathParameters: { slug },
  }),
  'POST /api/v1/projects/{slug}/features': () => ({
    path: `/api/v1/projects/${slug}/features`,
    pathParameters: { slug },
    body: { name: 'More', basePrice: 1 },
  }),
  'PUT /api/v1/projects/{slug}/features/{featureId}': () => feature({}),
  'DELETE /api/v1/projects/{slug}/features/{featureId}': () => ({
    path: `/api/v1/projects/${slug}/features/999999`,
    pathParameters: { slug, featureId: '999999' },
  }),
  'GET /api/v1/projects/{slug}/plans': () => ({ path: `/api/v1/projects/${slug}/plans`, pathParameters: { slug } }),
  'POST /api/v1/projects/{slug}/plans': () => ({
    path: `/api/v1/projects/${slug}/plans`,
    pathParameters: { slug },
    body: { name: 'Another' },
  }),
  'PUT /api/v1/projects/{slug}/plans/{planId}': () => plan('', {}),
  'DELETE /api/v1/projects/{slug}/plans/{planId}': () => ({
    path: `/api/v1/projects/${slug}/plans/999999`,
    pathParameters: { slug, planId: '999999' },
  }),
  'POST /api/v1/projects/{slug}/plans/{planId}/duplicate': () => ({
    path: `/api/v1/projects/${slug}/plans/999999/duplicate`,
    pathParameters: { slug, planId: '999999' },
    body: {},
  }),
  'GET /api/v1/projects/{slug}/plans/{planId}/features': () => plan('/features'),
  'POST /api/v1/projects/{slug}/plans/{planId}/features': () => plan('/features', { featureId: featureIds[0] }),
  'DELETE /api/v1/projects/{slug}/plans/{planId}/features': () => ({
    ...plan('/features'),
    path: `/api/v1/projects/${slug}/plans/${planId}/features?featureId=999999`,
  }),
  'PUT /api/v1/projects/{slug}/plans/{planId}/features/{featureId}': () => ({
    path: `/api/v1/projects/${slug}/plans/${planId}/features/${featureIds[0]}`,
    pathParameters: { slug, planId: String(planId), featureId: String(featureIds[0]) },
    body: { multiplier: 1 },
  }),
  'GET /api/v1/projects/{slug}/plans/{planId}/versions': () => plan('/versions'),
  'POST /api/v1/projects/{slug}/plans/{planId}/migrate': () => plan('/migrate', { dryRun: true }),
  'GET /openapi.json': () => ({ path: '/openapi.json' }),
  'GET /api/v1/projects/{slug}/customers': () => customer(''),
  'GET /api/v1/projects/{slug}/customers/{customerId}': () => customer('/c1'),
  'PUT /api/v1/projects/{slug}/customers/{customerId}': () => ({ ...customer('/c1'), body: { planId } }),
  'DELETE /api/v1/projects/{slug}/customers/{customerId}': () => customer('/nobody'),
  'GET /api/v1/projects/{slug}/customers/{customerId}/entitlements': () => customer('/c1/entitlements'),
  'GET /api/v1/projects/{slug}/customers/{customerId}/entitlements/{featureId}': () => ({
    ...customer(`/c1/entitlements/${featureIds[0]}`),
    pathParameters: { slug, customerId: 'c1', featureId: String(featureIds[0]) },
  }),
  'POST /api/v1/projects/{slug}/customers/{customerId}/entitlements/{featureId}/consume': () => ({
    ...customer(`/c1/entitlements/${featureIds[0]}/consume`),
    pathParameters: { slug, customerId: 'c1', featureId: String(featureIds[0]) },
    body: { eventId: `e-${Math.random()}` },
  }),
  'POST /api/v1/projects/{slug}/customers/{customerId}/subscription/preview': () => ({
    ...customer('/c1/subscription/preview'),
    body: { planId },
  }),
  'POST /api/v1/projects/{slug}/customers/{customerId}/subscription': () => ({
    ...customer('/c1/subscription'),
    body: { planId },
  }),
  'POST /api/v1/projects/{slug}/customers/{customerId}/subscription/cancel': () => ({
    ...customer('/nobody/subscription/cancel'),
    body: {},
  }),
  'POST /api/v1/projects/{slug}/customers/{customerId}/subscription/resume': () => customer('/c1/subscription/resume'),
  'POST /api/v1/projects/{slug}/customers/{customerId}/portal': () => ({ ...customer('/c1/portal'), body: {} }),
  'POST /api/v1/projects/{slug}/customers/{customerId}/token': () => customer('/c1/token'),
  'GET /api/share/{shareId}/customer': () => ({ path: `/api/share/${shareId}/customer`, pathParameters: { shareId } }),
  'OPTIONS /api/share/{shareId}/customer': () => ({
    path: `/api/share/${shareId}/customer`,
    pathParameters: { shareId },
  }),
  'POST /api/payments/subscription/preview': () => ({
    path: '/api/payments/subscription/preview',
    body: { shareId, planId },
  }),
  'OPTIONS /api/payments/subscription/preview': () => ({ path: '/api/payments/subscription/preview' }),
  'POST /api/payments/subscription': () => ({ path: '/api/payments/subscription', body: { shareId, planId } }),
  'OPTIONS /api/payments/subscription': () => ({ path: '/api/payments/subscription' }),
  'POST /api/payments/subscription/cancel': () => ({ path: '/api/payments/subscription/cancel', body: { shareId } }),
  'OPTIONS /api/payments/subscription/cancel': () => ({ path: '/api/payments/subscription/cancel' }),
  'POST /api/payments/subscription/resume': () => ({ path: '/api/payments/subscription/resume', body: { shareId } }),
  'OPTIONS /api/payments/subscription/resume': () => ({ path: '/api/payments/subscription/resume' }),
  'POST /api/payments/portal': () => ({ path: '/api/payments/portal', body: { shareId } }),
  'OPTIONS /api/payments/portal': () => ({ path: '/api/payments/portal' }),
  'POST /api/v1/projects/{slug}/events': () => ({
    path: `/api/v1/projects/${slug}/events`,
    pathParameters: { slug },
    body: { events: [{ eventId: `e-${Math.random()}`, customerId: 'c1', featureId: featureIds[0], value: 1 }] },
  }),
};

const feature = (body: unknown): Call => ({
  path: `/api/v1/projects/${slug}/features/${featureIds[0]}`,
  pathParameters: { slug, featureId: String(featureIds[0]) },
  body,
});
const plan = (tail: string, body?: unknown): Call => ({
  path: `/api/v1/projects/${slug}/plans/${planId}${tail}`,
  pathParameters: { slug, planId: String(planId) },
  ...(body === undefined ? {} : { body }),
});
const customer = (tail: string): Call => {
  const customerId = tail.split('/')[1];
  return {
    path: `/api/v1/projects/${slug}/customers${tail}`,
    pathParameters: { slug, ...(customerId ? { customerId } : {}) },
  };
};

async function invoke(
  routeKey: string,
  method: string,
  call: Call,
  headers: Record<string, string> = {},
): Promise<LambdaResult> {
  const route = routes.find((entry) => `${entry.method} ${entry.path}` === routeKey);
  if (!route) throw new Error(routeKey);
  const [path, query] = call.path.split('?');
  const event = httpEvent(method, route.path, {
    path,
    routeKey: `${method} ${route.path}`,
    ...(call.pathParameters ? { pathParameters: call.pathParameters } : {}),
    headers: {
      authorization: `Bearer ${key}`,
      ...(call.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    ...(call.body === undefined ? {} : { body: JSON.stringify(call.body) }),
  });
  if (query) event.queryStringParameters = Object.fromEntries(new URLSearchParams(query));
  return handlers[route.group](event, lambdaContext());
}

/** The body as sent on the wire, and as the client reads it after undoing the coding. */
function bytesOf(result: LambdaResult): { wire: Buffer; plain: Buffer } {
  const wire = Buffer.from(result.body ?? '', result.isBase64Encoded ? 'base64' : 'utf8');
  const coding = result.headers['content-encoding'];
  const plain = coding === 'br' ? brotliDecompressSync(wire) : coding === 'gzip' ? gunzipSync(wire) : wire;
  return { wire, plain };
}

const varies = (result: LambdaResult) => /(^|,)\s*accept-encoding\s*(,|$)/i.test(String(result.headers.vary ?? ''));

describe('Accept-Encoding', () => {
  test.each([
    ['gzip, deflate, br', 'br'],
    ['gzip', 'gzip'],
    ['x-gzip', 'gzip'],
    ['br;q=0.5, gzip', 'gzip'],
    ['*', 'br'],
    ['gzip;q=0, *', 'br'],
    ['br;q=0, gzip;q=0, *', undefined],
    ['identity', undefined],
    ['deflate', undefined],
    ['', undefined],
  ])('%j answers in %s', (header, coding) => {
    expect(negotiate(header)).toBe(coding);
  });
});

const routeKeys = routes.map((route) => `${route.method} ${route.path}` as RouteKey);

describe('every route of the table', () => {
  test.each(routeKeys)('%s: coded over 1 KB in the coding accepted, inflating to the same answer', async (routeKey) => {
    const method = routeKey.split(' ')[0] as string;
    // GETs are compared with the identity answer byte for byte; writes answer once per call.
    const identity = await invoke(routeKey, method, calls[routeKey](), { 'accept-encoding': 'identity' });
    expect(identity.statusCode, String(identity.body).slice(0, 200)).toBeLessThan(500);
    expect(identity.headers['content-encoding'], routeKey).toBeUndefined();
    if (identity.body !== undefined) expect(varies(identity), routeKey).toBe(true);
    for (const coding of ['gzip', 'br'] as const) {
      const result = await invoke(routeKey, method, calls[routeKey](), { 'accept-encoding': coding });
      expect(result.statusCode, routeKey).toBe(identity.statusCode);
      if (result.body === undefined) continue;
      expect(varies(result), routeKey).toBe(true);
      const { wire, plain } = bytesOf(result);
      if (plain.length > COMPRESS_OVER_BYTES && (routeKey !== 'GET /openapi.json' || coding === 'gzip')) {
        expect(result.headers['content-encoding'], `${routeKey} ${coding}`).toBe(coding);
        expect(result.isBase64Encoded).toBe(true);
        expect(wire.length, `${routeKey} ${coding}`).toBeLessThan(plain.length);
      } else if (plain.length <= COMPRESS_OVER_BYTES) {
        expect(result.headers['content-encoding'], `${routeKey} ${coding}`).toBeUndefined();
      }
      if (method === 'GET')
        expect(plain.toString('utf8'), `${routeKey} ${coding}`).toBe(bytesOf(identity).plain.toString());
    }
  });

  test('the answers over 1 KB cover reads, writes, errors and the public routes', async () => {
    const coded: string[] = [];
    for (const routeKey of routeKeys) {
      const method = routeKey.split(' ')[0] as string;
      const result = await invoke(routeKey, method, calls[routeKey](), { 'accept-encoding': 'br' });
      if (result.headers['content-encoding']) coded.push(routeKey);
    }
    for (const expected of [
      'GET /api/share/{shareId}',
      'GET /widget.js',
      'GET /openapi.json',
      'GET /api/v1/projects',
      'GET /api/v1/projects/{slug}',
      'PUT /api/v1/projects/{slug}',
      'GET /api/v1/projects/{slug}/changes',
      'GET /api/v1/projects/{slug}/features',
      'GET /api/v1/projects/{slug}/plans',
      'PUT /api/v1/projects/{slug}/plans/{planId}',
      'GET /api/v1/projects/{slug}/plans/{planId}/features',
      'GET /api/v1/projects/{slug}/customers/{customerId}/entitlements',
    ]) {
      expect(coded, expected).toContain(expected);
    }
  });

  test.each(
    routes
      .filter((route) => route.auth !== 'public' || route.method === 'POST')
      .filter((r) => r.method !== 'GET' && r.method !== 'DELETE'),
  )('$method $path: a 400 over 1 KB (twenty unknown long fields) goes out coded too', async (route) => {
    const routeKey = `${route.method} ${route.path}` as RouteKey;
    const unknown = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`${'unknown'.repeat(12)}${i}`, 1]));
    const result = await invoke(
      routeKey,
      route.method,
      { ...calls[routeKey](), body: unknown },
      { 'accept-encoding': 'gzip' },
    );
    if (result.statusCode !== 400) return; // a route that refuses before the body (webhook signature) is covered above
    expect(result.headers['content-encoding']).toBe('gzip');
    expect(JSON.parse(bytesOf(result).plain.toString()).error.code).toBe('validation_error');
  });

  test.each(routes.filter((route) => route.method === 'GET'))(
    "HEAD $path: the GET's status and headers, the coded length, no body",
    async (route) => {
      const routeKey = `GET ${route.path}` as RouteKey;
      for (const coding of ['identity', 'gzip', 'br']) {
        const get = await invoke(routeKey, 'GET', calls[routeKey](), { 'accept-encoding': coding });
        const head = await invoke(routeKey, 'HEAD', calls[routeKey](), { 'accept-encoding': coding });
        expect(head.statusCode, `${route.path} ${coding}`).toBe(get.statusCode);
        expect(head.body).toBeUndefined();
        expect(head.headers['content-encoding'], `${route.path} ${coding}`).toBe(get.headers['content-encoding']);
        expect(Number(head.headers['content-length']), `${route.path} ${coding}`).toBe(bytesOf(get).wire.length);
        expect(head.headers.etag, `${route.path} ${coding}`).toBe(get.headers.etag);
      }
    },
  );

  test.each(routes.filter((route) => route.method === 'GET'))(
    '$path: a 304 to the tag of either coding, with either coding accepted',
    async (route) => {
      const routeKey = `GET ${route.path}` as RouteKey;
      const tags = new Map<string, string>();
      for (const coding of ['identity', 'gzip', 'br']) {
        const got = await invoke(routeKey, 'GET', calls[routeKey](), { 'accept-encoding': coding });
        if (got.headers.etag) tags.set(coding, String(got.headers.etag));
      }
      if (tags.size === 0) return; // answers with no ETag (errors, pages that change)
      for (const [heldCoding, tag] of tags) {
        for (const coding of ['identity', 'gzip', 'br']) {
          const again = await invoke(routeKey, 'GET', calls[routeKey](), {
            'accept-encoding': coding,
            'if-none-match': tag,
          });
          expect(again.statusCode, `${route.path}: ${heldCoding} tag, ${coding} accepted`).toBe(304);
          expect(again.body).toBeUndefined();
          expect(varies(again)).toBe(true);
          // The tag of the copy held when this coding's own is not the one named.
          const own = tags.get(coding);
          expect([own, tag], `${route.path}: ${heldCoding} tag, ${coding} accepted`).toContain(again.headers.etag);
        }
      }
    },
  );

  test('a PUT takes If-Match with the tag of a coded GET', async () => {
    const got = await invoke('GET /api/v1/projects/{slug}', 'GET', calls['GET /api/v1/projects/{slug}'](), {
      'accept-encoding': 'br',
    });
    expect(String(got.headers.etag)).toMatch(/-br"$/);
    const put = await invoke(
      'PUT /api/v1/projects/{slug}',
      'PUT',
      { ...calls['PUT /api/v1/projects/{slug}'](), body: {} },
      {
        'if-match': String(got.headers.etag),
      },
    );
    expect(put.statusCode).toBe(200);
  });
});

/** A raw HTTP request: fetch would undo the coding and hide the bytes. */
function raw(path: string, headers: Record<string, string>, method = 'GET') {
  return new Promise<{ status: number; headers: Record<string, unknown>; body: Buffer }>((resolve, reject) => {
    const request = httpRequest(`${server.url}${path}`, { method, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }),
      );
    });
    request.on('error', reject);
    request.end();
  });
}

describe('the local server', () => {
  test('sends the coded bytes, their length, and the same for HEAD', async () => {
    for (const coding of ['br', 'gzip'] as const) {
      const got = await raw(`/api/share/${shareId}`, { 'accept-encoding': coding });
      expect(got.status).toBe(200);
      expect(got.headers['content-encoding']).toBe(coding);
      expect(got.headers.vary).toMatch(/Accept-Encoding/);
      const plain = coding === 'br' ? brotliDecompressSync(got.body) : gunzipSync(got.body);
      expect(JSON.parse(plain.toString()).projectName ?? JSON.parse(plain.toString()).name).toBeDefined();
      expect(Number(got.headers['content-length'])).toBe(got.body.length);
      const head = await raw(`/api/share/${shareId}`, { 'accept-encoding': coding }, 'HEAD');
      expect(head.body.length).toBe(0);
      expect(Number(head.headers['content-length'])).toBe(got.body.length);
    }
    const plain = await raw(`/api/share/${shareId}`, {});
    expect(plain.headers['content-encoding']).toBeUndefined();
  });
});
