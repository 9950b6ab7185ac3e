import { Agent, request } from 'node:http';
import type { Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { type LocalServer, startLocalServer } from '#dev/local-server.ts';
import { slowRequest } from '../fixtures/slow-request.ts';

const running: LocalServer[] = [];
afterEach(async () => {
  for (const server of running.splice(0)) await server.close({ graceMs: 0 });
});

async function serve(): Promise<LocalServer> {
  const server = await startLocalServer({ port: 0 });
  running.push(server);
  return server;
}

async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`still not ${what} after 5 s`);
    await sleep(10);
  }
}

/** A finished request whose keep-alive connection stays open, idle; resolves to that socket. */
function idleConnection(url: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}/api/v1/projects`, { agent: new Agent({ keepAlive: true }) }, (res) => {
      res.resume();
      res.once('end', () => resolve(req.socket as Socket));
    });
    req.once('error', reject);
    req.end();
  });
}

/** A server holding one request whose body never finishes arriving. */
async function serveOneStuck() {
  const server = await serve();
  const stuck = slowRequest(`${server.url}/api/v1/projects`, { body: JSON.stringify({ name: 'Never' }) });
  await stuck.sent;
  await until(() => server.inFlight === 1, 'in flight');
  return { server, stuck };
}

const closedSocket = (socket: Socket) =>
  socket.destroyed ? Promise.resolve() : new Promise<void>((resolve) => socket.once('close', () => resolve()));

describe('the local server drains on close()', () => {
  it('refuses new connections, closes idle ones at once, and answers the request in flight whole, with Connection: close', async () => {
    const server = await serve();
    const idle = await idleConnection(server.url);
    const inFlight = slowRequest(`${server.url}/api/v1/projects`, { body: JSON.stringify({ name: 'Late' }) });
    await inFlight.sent;
    await until(() => server.inFlight === 1, 'in flight');

    let closed = false;
    const closing = server.close().then(() => {
      closed = true;
    });
    await closedSocket(idle);
    const refused = await fetch(server.url).catch((error: Error) => error);
    expect((refused as Error & { cause?: { code?: string } }).cause?.code).toBe('ECONNREFUSED');
    await sleep(200);
    expect(closed).toBe(false);

    inFlight.finish();
    const answer = await inFlight.answer;
    expect(answer.status).toBe(401);
    expect(JSON.parse(answer.body)).toMatchObject({ error: { code: 'unauthorized' } });
    expect(answer.headers.connection).toBe('close');
    const finished = Date.now();
    await closing;
    // Its connection ended with the answer: no keep-alive timeout to wait out.
    expect(Date.now() - finished).toBeLessThan(1_000);
  });

  it('closes what is still in flight once the grace period is over', async () => {
    const { server, stuck } = await serveOneStuck();
    const started = Date.now();
    await server.close({ graceMs: 300 });
    const elapsed = Date.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(250);
    expect(elapsed).toBeLessThan(3_000);
    await expect(stuck.answer).rejects.toThrow();
  });

  it('a second close() with a shorter grace brings the cut forward', async () => {
    const { server, stuck } = await serveOneStuck();
    const first = server.close();
    await sleep(100);
    const started = Date.now();
    const second = server.close({ graceMs: 0 });
    await Promise.all([first, second]);
    expect(Date.now() - started).toBeLessThan(1_000);
    await expect(stuck.answer).rejects.toThrow();
  });
});
