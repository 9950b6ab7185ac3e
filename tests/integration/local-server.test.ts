/**
 * The local server as API Gateway's stand-in, over raw node:http (fetch would normalise the
 * path and send bodies its own way): a body over the 256 KiB limit is refused as soon as the
 * limit is passed, without reading the rest, and the path reaches the router as sent.
 */
import { once } from 'node:events';
import { type IncomingMessage, request } from 'node:http';
import type { Socket } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { limits } from '#contract/limits.ts';
import { type LocalServer, startLocalServer } from '#dev/local-server.ts';
import { ApiClient, newOwner } from '../fixtures/api.ts';
import { makeProject } from '../fixtures/factories.ts';

const MiB = 1024 * 1024;
let server: LocalServer;
const sockets: Socket[] = [];
let writeKey: string;
let slug: string;
let shareId: string;

beforeAll(async () => {
  server = await startLocalServer({ port: 0 });
  server.server.on('connection', (socket: Socket) => sockets.push(socket));
  const owner = await newOwner('local-server');
  writeKey = owner.writeKey;
  ({ slug, shareId } = await makeProject(new ApiClient(server.url, writeKey)));
});

afterAll(async () => {
  await server?.close();
});

async function readAnswer(response: IncomingMessage) {
  const chunks: Buffer[] = [];
  for await (const chunk of response) chunks.push(chunk as Buffer);
  return { status: response.statusCode, headers: response.headers, json: JSON.parse(Buffer.concat(chunks).toString()) };
}

/** Starts a POST and returns it with its answer to come; a reset after the answer is expected. */
function startPost(path: string, headers: Record<string, string>) {
  const req = request(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${writeKey}`, ...headers },
  });
  req.on('error', () => {});
  const answer = once(req, 'response').then(([response]) => readAnswer(response as IncomingMessage));
  return { req, answer };
}

describe('a body over the limit', () => {
  test('with a declared length over 256 KiB is 413 before any of it is sent, and the connection closes', async () => {
    const { req, answer } = startPost('/api/v1/projects', { 'content-length': String(MiB) });
    req.flushHeaders();
    const response = await answer;
    req.destroy();
    expect(response.status).toBe(413);
    expect(response.json.error.code).toBe('payload_too_large');
    expect(response.json.error.message).toContain('256 KiB');
    expect(response.headers.connection).toBe('close');
    expect(response.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.headers['x-content-type-options']).toBe('nosniff');
    expect(response.headers['access-control-allow-origin']).toBeUndefined();
  });

  test('of unknown length is 413 once 256 KiB is passed, while the rest is still unsent, and is not buffered', async () => {
    const before = new Set(sockets);
    const { req, answer } = startPost('/api/v1/projects', {});
    let answered = false;
    void answer.then(() => {
      answered = true;
    });
    const piece = Buffer.alloc(64 * 1024, 'x');
    let sent = 0;
    while (sent < MiB && !answered) {
      req.write(piece);
      sent += piece.length;
      await delay(20);
    }
    const response = await answer;
    req.destroy();
    expect(response.status).toBe(413);
    expect(response.json.error.code).toBe('payload_too_large');
    expect(sent).toBeGreaterThan(limits.bodyBytesMax);
    expect(sent).toBeLessThan(MiB);
    const [socket] = sockets.filter((s) => !before.has(s));
    expect(socket?.bytesRead).toBeLessThan(limits.bodyBytesMax + 128 * 1024);
  });

  test('on a public route carries the public headers', async () => {
    const { req, answer } = startPost('/api/payments/checkout', { 'content-length': String(MiB) });
    req.flushHeaders();
    const response = await answer;
    req.destroy();
    expect(response.status).toBe(413);
    expect(response.headers['access-control-allow-origin']).toBe('*');
  });

  test('a body at the limit is still read whole (and refused for its content, not its size)', async () => {
    const body = JSON.stringify({ name: 'x'.repeat(limits.bodyBytesMax - 20) }).slice(0, limits.bodyBytesMax);
    expect(Buffer.byteLength(body)).toBeLessThanOrEqual(limits.bodyBytesMax);
    const { req, answer } = startPost('/api/v1/projects', { 'content-length': String(Buffer.byteLength(body)) });
    req.end(body);
    const response = await answer;
    expect(response.status).toBe(400);
    expect(response.json.error.code).toBe('validation_error');
  });
});

/** A GET with the path exactly as given: node:http does not normalise it. */
async function getRaw(path: string) {
  const req = request(`${server.url}/`, { path, headers: { authorization: `Bearer ${writeKey}` } });
  req.end();
  const [response] = (await once(req, 'response')) as [IncomingMessage];
  return readAnswer(response);
}

describe('the path reaches the router as sent', () => {
  test.each([
    '/api/share/%2e%2e/%2e%2e/api/v1/projects',
    '/api/share/%2E%2E/%2E%2E/api/v1/projects',
    '/api/share/../../api/v1/projects',
    '/api/v1/projects/x/%2e%2e/{slug}',
    '/api/v1/projects/x/.%2e/{slug}',
    '/api/v1/projects/{slug}/plans/%2e%2e/features',
  ])('%s is not served by the route it would normalise to', async (template) => {
    const response = await getRaw(template.replace('{slug}', slug));
    expect(response.status).toBe(404);
    expect(response.json.error.code).toBe('not_found');
  });

  test('the same routes, asked for plainly, answer (so the 404s above are the path, not the key)', async () => {
    expect((await getRaw('/api/v1/projects')).status).toBe(200);
    expect((await getRaw(`/api/v1/projects/${slug}`)).status).toBe(200);
    expect((await getRaw(`/api/v1/projects/${slug}/features`)).status).toBe(200);
  });

  test('the query string still reaches the action, decoded', async () => {
    const req = request(`${server.url}/`, { path: `/demo/${shareId}?checkout=success&session_id=cs_test_%61bc` });
    req.end();
    const [response] = (await once(req, 'response')) as [IncomingMessage];
    let html = '';
    for await (const chunk of response) html += String(chunk);
    expect(response.statusCode).toBe(200);
    expect(html).toContain('session_id=cs_test_abc&amp;');
  });
});
