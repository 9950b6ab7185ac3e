/**
 * HEAD is GET without the body (RFC 9110 9.3.2): browsers, crawlers, uptime monitors and
 * CloudFront (which forwards a viewer's HEAD on a cache miss) send it. Over real HTTP, every
 * GET route answers HEAD with the GET's status and headers, Content-Length included, and no
 * body; 304 to a current If-None-Match; 404, 401 and 405 as GET would, without their bodies.
 */
import { request } from 'node:http';
import { beforeAll, describe, expect, test } from 'vitest';
import { type ApiClient, newOwner, useLocalServer } from '../fixtures/api.ts';
import { makeFeature, makePlan, makeProject } from '../fixtures/factories.ts';

const server = useLocalServer();

interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** Raw bytes and headers as sent (fetch would decode gzip and hide Content-Length). */
function send(method: string, path: string, headers: Record<string, string> = {}): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(`${server.url}${path}`, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Headers that differ per request or per connection, whatever the method. */
const perRequest = new Set(['date', 'x-request-id', 'connection', 'keep-alive', 'transfer-encoding']);
const comparable = (headers: RawAnswer['headers']) =>
  Object.fromEntries(Object.entries(headers).filter(([name]) => !perRequest.has(name)));

/** GET then HEAD with the same headers: HEAD has GET's status and headers, and no body. */
async function expectHeadLikeGet(path: string, headers: Record<string, string> = {}): Promise<RawAnswer> {
  const get = await send('GET', path, headers);
  const head = await send('HEAD', path, headers);
  expect(head.status, `HEAD ${path}`).toBe(get.status);
  expect(comparable(head.headers), `HEAD ${path}`).toEqual(comparable(get.headers));
  expect(head.headers['x-request-id'], `HEAD ${path}`).toBeTruthy();
  expect(head.body.length, `HEAD ${path}`).toBe(0);
  if (get.body.length > 0) expect(head.headers['content-length'], `HEAD ${path}`).toBe(String(get.body.length));
  return get;
}

let api: ApiClient;
let shareId: string;
let slug: string;
let readKey: string;

beforeAll(async () => {
  const owner = await newOwner('head');
  api = server.client(owner.writeKey);
  readKey = owner.readKey;
  const project = await makeProject(api, { name: 'Head' });
  await makeFeature(api, project.slug, { name: 'Seats' });
  await makePlan(api, project.slug, { name: 'Basic' });
  shareId = project.shareId;
  slug = project.slug;
});

describe('HEAD on the public routes answers as GET does, without the body', () => {
  test.each([
    ['the share data', () => `/api/share/${shareId}`, {}],
    ['the widget', () => '/widget.js', {}],
    ['the widget, gzipped', () => '/widget.js', { 'accept-encoding': 'gzip' }],
    ['the demo page', () => `/demo/${shareId}`, {}],
    ['the demo page back from a checkout', () => `/demo/${shareId}?checkout=success&session_id=cs_test_abc`, {}],
    ['the OpenAPI document', () => '/openapi.json', {}],
    ['the OpenAPI document, gzipped', () => '/openapi.json', { 'accept-encoding': 'gzip' }],
    ['the service root', () => '/', {}],
    ['the health check', () => '/health', {}],
    ['a receipt without its query (400)', () => '/api/payments/receipt', {}],
  ])('%s', async (_, path, headers) => {
    const get = await expectHeadLikeGet(path(), headers);
    expect(get.body.length).toBeGreaterThan(0);
    expect(get.headers['access-control-allow-origin']).toBe('*');
  });

  test('the cached routes carry their ETag and Cache-Control on HEAD', async () => {
    for (const path of [`/api/share/${shareId}`, '/widget.js', '/openapi.json']) {
      const head = await send('HEAD', path);
      expect(head.headers.etag, path).toMatch(/^"/);
      expect(head.headers['cache-control'], path).toMatch(/^public, max-age=\d+/);
    }
  });

  test.each([
    ['the share data', () => `/api/share/${shareId}`],
    ['the widget', () => '/widget.js'],
    ['the OpenAPI document', () => '/openapi.json'],
  ])('HEAD of %s with a current If-None-Match is 304, as GET is', async (_, path) => {
    const { etag } = (await send('HEAD', path())).headers;
    expect(typeof etag).toBe('string');
    const get = await send('GET', path(), { 'if-none-match': etag as string });
    const head = await send('HEAD', path(), { 'if-none-match': etag as string });
    expect(get.status).toBe(304);
    expect(head.status).toBe(304);
    expect(comparable(head.headers)).toEqual(comparable(get.headers));
    expect(head.body.length).toBe(0);
    expect((await send('HEAD', path(), { 'if-none-match': '"stale"' })).status).toBe(200);
  });

  test('HEAD of an unknown share is 404 with no body, as GET is (with its JSON error)', async () => {
    const get = await expectHeadLikeGet('/api/share/nosuchshare0000000000');
    expect(get.status).toBe(404);
    expect(JSON.parse(get.body.toString()).error.code).toBe('not_found');
  });
});

describe('HEAD on API v1 GETs: the same key, tenancy and answer as GET', () => {
  test('with a read key, the project, its features and plans: GET’s status and headers, no body', async () => {
    for (const tail of ['', '/features', '/plans', '/changes']) {
      const get = await expectHeadLikeGet(`/api/v1/projects/${slug}${tail}`, { authorization: `Bearer ${readKey}` });
      expect(get.status, tail).toBe(200);
      expect(get.headers['cache-control'], tail).toBe('no-store');
    }
    await expectHeadLikeGet('/api/v1/projects', { authorization: `Bearer ${readKey}` });
  });

  test('through the API client, whose answers are checked against the OpenAPI document (a GET’s statuses)', async () => {
    const head = await api.withKey(readKey).request('HEAD', `/api/v1/projects/${slug}/plans`);
    expect(head.status).toBe(200);
    expect(head.text).toBe('');
    expect(head.headers.get('etag')).toMatch(/^"/);
  });

  test('with a current If-None-Match: 304', async () => {
    const auth = { authorization: `Bearer ${readKey}` };
    const { etag } = (await send('HEAD', `/api/v1/projects/${slug}`, auth)).headers;
    const head = await send('HEAD', `/api/v1/projects/${slug}`, { ...auth, 'if-none-match': etag as string });
    expect(head.status).toBe(304);
    expect(head.body.length).toBe(0);
  });

  test('without a key 401, and another owner’s project 404, as GET: no body', async () => {
    expect((await expectHeadLikeGet(`/api/v1/projects/${slug}`)).status).toBe(401);
    const stranger = await newOwner('head-stranger');
    const other = await expectHeadLikeGet(`/api/v1/projects/${slug}`, { authorization: `Bearer ${stranger.readKey}` });
    expect(other.status).toBe(404);
  });
});

describe('HEAD where there is no GET', () => {
  test.each([
    ['/api/payments/checkout', 'POST, OPTIONS'],
    ['/api/v1/projects/acme/plans/1/duplicate', 'POST'],
    ['/api/payments/webhook/abcdefghijklmnop1234', 'POST'],
  ])('HEAD %s is 405 with Allow: %s and no body', async (path, allow) => {
    const head = await send('HEAD', path);
    expect(head.status).toBe(405);
    expect(head.headers.allow).toBe(allow);
    expect(head.body.length).toBe(0);
    // The same answer as another method's 405, which has the JSON error body.
    const patch = await send('PATCH', path);
    expect(patch.status).toBe(405);
    expect(patch.headers.allow).toBe(allow);
    expect(head.headers['content-length']).toBe(String(patch.body.length + 'HEAD'.length - 'PATCH'.length));
  });

  test('an unknown path is 404 with no body', async () => {
    const head = await send('HEAD', '/nowhere');
    expect(head.status).toBe(404);
    expect(head.body.length).toBe(0);
  });

  test('a GET path lists HEAD in its Allow header', async () => {
    const post = await api.post('/widget.js', {});
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    expect(post.body.error.code).toBe('method_not_allowed');
  });
});
