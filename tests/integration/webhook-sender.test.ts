import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ATTEMPT_TIMEOUT_MS } from '#domain/webhooks-out/delivery.ts';
import { httpWebhookSender } from '#shared/webhooks-out/http-sender.ts';

/**
 * One attempt over HTTP (lifecycle.md §4): only a status counts; a receiver that hangs, answers
 * too slowly or resets is null (retried), a redirect is an answer like any other (never
 * followed), and the public policy sends nothing to a loopback host.
 */
const server = createServer((req, res) => {
  req.resume();
  if (req.url === '/hang') return; // never answers
  if (req.url === '/reset') return req.socket.destroy();
  if (req.url === '/redirect') return res.writeHead(302, { location: '/elsewhere' }).end();
  if (req.url === '/slow') return setTimeout(() => res.writeHead(200).end(), 500);
  res.writeHead(req.url === '/elsewhere' ? 200 : 204).end();
});
let base: string;
const seen: string[] = [];
server.on('request', (req) => seen.push(req.url ?? ''));

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('the HTTP sender of webhooks out', () => {
  test('gives up on an attempt after 10 s by default', () => {
    expect(ATTEMPT_TIMEOUT_MS).toBe(10_000);
  });

  test('a hanging or too slow receiver is null at the timeout; a reset is null; 2xx is its status', async () => {
    const sender = httpWebhookSender('loopback', 200);
    const started = Date.now();
    expect(await sender.send(`${base}/hang`, {}, '{}')).toBeNull();
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(await sender.send(`${base}/slow`, {}, '{}')).toBeNull();
    expect(await sender.send(`${base}/reset`, {}, '{}')).toBeNull();
    expect(await sender.send(`${base}/ok`, {}, '{}')).toBe(204);
  });

  test('a redirect is its status, not followed', async () => {
    const sender = httpWebhookSender('loopback', 2_000);
    expect(await sender.send(`${base}/redirect`, {}, '{}')).toBe(302);
    expect(seen).not.toContain('/elsewhere');
  });

  test('the public policy sends nothing to a loopback or private host', async () => {
    const sender = httpWebhookSender('public', 2_000);
    const before = seen.length;
    expect(await sender.send(`${base}/ok`, {}, '{}')).toBeNull();
    expect(await sender.send('https://127.0.0.1/ok', {}, '{}')).toBeNull();
    expect(await sender.send('https://169.254.169.254/latest/meta-data', {}, '{}')).toBeNull();
    expect(seen.length).toBe(before);
  });
});
