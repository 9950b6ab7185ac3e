/**
 * The headers every answer shares (decisions.md, "Scripting v1 safely"): CORS on the public
 * routes only, decided by the route API Gateway matched and never by the raw path (a stage
 * or a custom domain's base path puts something before `/api/v1`); `Cache-Control: no-store`
 * on every `/api/v1` answer; `X-Content-Type-Options: nosniff` on every answer.
 */
import { beforeAll, describe, expect, test } from 'vitest';
import { composeFromEnvironment } from '#dev/local-server.ts';
import { groupActions } from '#functions/action-registry.ts';
import { featuresRoutes } from '#functions/features/routes.ts';
import { routes } from '#functions/routes.ts';
import { defineGroup, routesIn } from '#http/action.ts';
import { createGroupHandler } from '#http/group-handler.ts';
import type { LambdaResult } from '#http/responses.ts';
import { compose } from '#shared/composition.ts';
import { runtimeConfig } from '#shared/config.ts';
import { publicPathPrefixes } from '#shared/routes.ts';
import { type ApiClient, type ApiResponse, newOwner, useLocalServer } from '../fixtures/api.ts';
import { httpEvent, lambdaContext } from '../fixtures/events.ts';
import { makeFeature, makePlan, makeProject } from '../fixtures/factories.ts';

const server = useLocalServer();
const app = composeFromEnvironment();
const handlers = {
  share: createGroupHandler(groupActions.share, app, routes),
  payments: createGroupHandler(groupActions.payments, app, routes),
  projects: createGroupHandler(groupActions.projects, app, routes),
};
let api: ApiClient;
let readKey: string;
let slug: string;
let shareId: string;
let planId: number;
let featureId: number;

beforeAll(async () => {
  const owner = await newOwner('headers');
  readKey = owner.readKey;
  api = server.client(owner.writeKey);
  ({ slug, shareId } = await makeProject(api));
  featureId = (await makeFeature(api, slug)).id;
  planId = (await makePlan(api, slug)).id;
});

const cors = (response: LambdaResult) => response.headers['access-control-allow-origin'];

describe('CORS, by route and not by raw path', () => {
  test('a v1 route under a stage prefix gets no CORS header, on success or error', async () => {
    // What API Gateway sends for a stage named prod: the raw path keeps the stage.
    const listed = await handlers.projects(
      httpEvent('GET', '/api/v1/projects', {
        path: '/prod/api/v1/projects',
        headers: { authorization: `Bearer ${readKey}` },
      }),
      lambdaContext(),
    );
    expect(listed.statusCode).toBe(200);
    expect(cors(listed)).toBeUndefined();
    expect(listed.headers['access-control-expose-headers']).toBeUndefined();
    const refused = await handlers.projects(
      httpEvent('GET', '/api/v1/projects', { path: '/prod/api/v1/projects' }),
      lambdaContext(),
    );
    expect(refused.statusCode).toBe(401);
    expect(cors(refused)).toBeUndefined();
    // A custom domain's base path does the same.
    const based = await handlers.projects(
      httpEvent('GET', '/api/v1/projects/{slug}', {
        path: `/pricing/api/v1/projects/${slug}`,
        pathParameters: { slug },
        headers: { authorization: `Bearer ${readKey}` },
      }),
      lambdaContext(),
    );
    expect(based.statusCode).toBe(200);
    expect(cors(based)).toBeUndefined();
  });

  test('the public routes keep it under a prefix, on success and on errors, 404s included', async () => {
    const shared = await handlers.share(
      httpEvent('GET', '/api/share/{shareId}', { path: `/prod/api/share/${shareId}`, pathParameters: { shareId } }),
      lambdaContext(),
    );
    expect(shared.statusCode).toBe(200);
    expect(cors(shared)).toBe('*');
    expect(shared.headers['access-control-expose-headers']).toBe('ETag, X-Request-Id, Retry-After, Pricing-Experiment');
    const unknown = 'abcdefghijklmnopqrstuvwxyz';
    const missing = await handlers.share(
      httpEvent('GET', '/api/share/{shareId}', {
        path: `/prod/api/share/${unknown}`,
        pathParameters: { shareId: unknown },
      }),
      lambdaContext(),
    );
    expect(missing.statusCode).toBe(404);
    expect(cors(missing)).toBe('*');
    const preflight = await handlers.payments(
      httpEvent('OPTIONS', '/api/payments/checkout', { path: '/prod/api/payments/checkout' }),
      lambdaContext(),
    );
    expect(preflight.statusCode).toBe(204);
    expect(cors(preflight)).toBe('*');
    const invalid = await handlers.payments(
      httpEvent('POST', '/api/payments/checkout', {
        path: '/prod/api/payments/checkout',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      }),
      lambdaContext(),
    );
    expect(invalid.statusCode).toBe(400);
    expect(cors(invalid)).toBe('*');
  });

  test.each(publicPathPrefixes)(
    'every answer under %s carries it, routed or not (404, 405), over HTTP and from the fallback function',
    async (prefix) => {
      const anonymous = server.client(null);
      const routed = routes.filter((route) => route.path.startsWith(`${prefix}/`));
      expect(routed.length).toBeGreaterThan(0);
      const paths = [
        prefix,
        `${prefix}/`,
        `${prefix}/nope`,
        `${prefix}/${shareId}/extra`,
        `${prefix}/a/b/c`,
        ...routed.map((route) => route.path.replace(/\{\w+\}/g, shareId)),
      ];
      for (const path of paths) {
        for (const method of ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS']) {
          const response = await anonymous.request(method, path);
          expect(response.status, `${method} ${path}`).toBeLessThan(500);
          expect(response.headers.get('access-control-allow-origin'), `${method} ${path}`).toBe('*');
          expect(response.headers.get('x-request-id'), `${method} ${path}`).toBeTruthy();
        }
        const fallback = await handlers.share(httpEvent('GET', path, { routeKey: '$default' }), lambdaContext());
        if (
          !routed.some(
            (route) => route.method === 'GET' && new RegExp(`^${route.path.replace(/\{\w+\}/g, '[^/]+')}$`).test(path),
          )
        ) {
          expect([404, 405], `GET ${path}`).toContain(fallback.statusCode);
        }
        expect(cors(fallback), `GET ${path}`).toBe('*');
      }
    },
  );

  test("unmatched requests ($default) elsewhere get it only on a public route's path", async () => {
    const unmatched = (method: string, path: string) =>
      handlers.share(httpEvent(method, path, { routeKey: '$default' }), lambdaContext());
    const publicPath = await unmatched('POST', `/api/share/${shareId}`);
    expect(publicPath.statusCode).toBe(405);
    expect(cors(publicPath)).toBe('*');
    for (const [method, path, status] of [
      ['PATCH', '/api/v1/projects', 405],
      ['GET', '/api/v1/projects/', 404],
      ['GET', '/nowhere', 404],
      ['GET', '/nothing/here', 404],
      // Under a prefix the router matches nothing: a 404 with no CORS, as for any unknown path.
      ['GET', `/prod/api/share/${shareId}/x`, 404],
    ] as const) {
      const response = await unmatched(method, path);
      expect(response.statusCode, `${method} ${path}`).toBe(status);
      expect(cors(response), `${method} ${path}`).toBeUndefined();
    }
  });
});

const noStore = (response: ApiResponse) => response.headers.get('cache-control');
const nosniff = (response: ApiResponse) => response.headers.get('x-content-type-options');

describe('Cache-Control: no-store on API v1, nosniff on everything', () => {
  test('every v1 group, success and errors (400, 401, 403, 404, 405)', async () => {
    const anonymous = server.client(null);
    const reader = server.client(readKey);
    const answers: Array<[string, ApiResponse, number]> = [
      ['projects 200', await api.get(`/api/v1/projects/${slug}`), 200],
      ['features 200', await api.get(`/api/v1/projects/${slug}/features`), 200],
      ['plans 200', await api.get(`/api/v1/projects/${slug}/plans/${planId}/features`), 200],
      ['features 201', await api.post(`/api/v1/projects/${slug}/features`, { name: 'Fresh', basePrice: 1 }), 201],
      ['plans 400', await api.put(`/api/v1/projects/${slug}/plans/${planId}`, { freemiumDay: -1 }), 400],
      ['401', await anonymous.get('/api/v1/projects'), 401],
      ['403', await reader.put(`/api/v1/projects/${slug}/features/${featureId}`, { name: 'x' }), 403],
      ['404', await api.get('/api/v1/projects/missing-project'), 404],
      ['405', await api.request('PATCH', '/api/v1/projects'), 405],
      ['unknown path 404', await api.get('/nowhere'), 404],
    ];
    for (const [label, response, status] of answers) {
      expect(response.status, label).toBe(status);
      expect(noStore(response), label).toBe('no-store');
      expect(nosniff(response), label).toBe('nosniff');
      expect(response.headers.get('access-control-allow-origin'), label).toBeNull();
    }
  });

  test('public answers keep their own caching and get nosniff, errors included', async () => {
    const anonymous = server.client(null);
    const shared = await anonymous.get(`/api/share/${shareId}`);
    expect(noStore(shared)).toBe('public, max-age=30');
    const widget = await anonymous.get('/widget.js');
    expect(noStore(widget)).toBe('public, max-age=86400, stale-while-revalidate=604800');
    const demo = await anonymous.get(`/demo/${shareId}`);
    expect(noStore(demo)).toBe('public, max-age=300');
    const missing = await anonymous.get('/api/share/abcdefghijklmnopqrstuvwxyz');
    const refused = await anonymous.post('/api/payments/checkout', { shareId });
    const preflight = await anonymous.request('OPTIONS', '/api/payments/receipt');
    for (const response of [shared, widget, demo, missing, refused, preflight]) {
      expect(nosniff(response)).toBe('nosniff');
      expect(response.headers.get('access-control-allow-origin')).toBe('*');
    }
    expect([missing.status, refused.status, preflight.status]).toEqual([404, 400, 204]);
  });

  test('a 500 carries them too, and no-store on a v1 route', async () => {
    const fail = async (): Promise<never> => {
      throw new Error('boom');
    };
    const route = routesIn(featuresRoutes);
    const failing = defineGroup(featuresRoutes, [
      route('GET /api/v1/projects/{slug}/features', { run: fail }),
      route('POST /api/v1/projects/{slug}/features', { run: fail }),
      route('PUT /api/v1/projects/{slug}/features/{featureId}', { run: fail }),
      route('DELETE /api/v1/projects/{slug}/features/{featureId}', { run: fail }),
    ]);
    const handler = createGroupHandler(failing, compose(runtimeConfig(), {}), routes);
    const response = await handler(
      httpEvent('GET', '/api/v1/projects/{slug}/features', {
        path: `/api/v1/projects/${slug}/features`,
        pathParameters: { slug },
        headers: { authorization: `Bearer ${readKey}` },
      }),
      lambdaContext(),
    );
    expect(response.statusCode).toBe(500);
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.headers['x-content-type-options']).toBe('nosniff');
    expect(cors(response)).toBeUndefined();
  });
});
