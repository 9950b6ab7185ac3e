import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { limits } from '#contract/limits.ts';
import { freePort } from '#dev/dynamodb-local.ts';
import type { Clock } from '#domain/ports.ts';
import { type ApiClient, type ApiResponse, newOwner, useLocalServer } from '../fixtures/api.ts';
import { makePlan, makeProject } from '../fixtures/factories.ts';
import { sendFrom } from '../fixtures/send-from.ts';

/**
 * decisions.md: public payment calls (checkout, custom checkout, receipt) are limited across
 * all function instances per client address and project to 30 in any 60 s, and per project
 * to 600 in any 60 s; past either, 429 `rate_limited` with `Retry-After` in seconds. The
 * payment routes here read a clock the test sets, so a minute passes without waiting for it,
 * and each client sends from an address of its own (all of 127.0.0.0/8 is this machine's):
 * the address is the connection's, as API Gateway's sourceIp is.
 */

// The fake Stripe server must exist before the handlers read STRIPE_API_BASE at load.
const { fake } = await vi.hoisted(async () => {
  const { startFakeStripe } = await import('#dev/fake-stripe/index.ts');
  const started = await startFakeStripe();
  process.env.STRIPE_API_BASE = started.url;
  process.env.STRIPE_TIMEOUT_MS = '5000';
  return { fake: started };
});

const LIMIT = 30;
const PROJECT_LIMIT = 600;
// Bursts of 100 checkouts share two cores with everything else a test run does.
vi.setConfig({ testTimeout: 120_000 });

/** Stands still until the test moves it. */
class TestClock implements Clock {
  ms = Date.now();
  now() {
    return this.ms;
  }
}

const clock = new TestClock();
const server = useLocalServer({ clock });
let api: ApiClient;

beforeAll(async () => {
  api = server.client((await newOwner('rate')).writeKey);
});

afterAll(async () => {
  await fake.close();
});

/** A project that can take payments, with one paid plan. */
async function shop(client = api) {
  const key = `sk_test_${randomBytes(16).toString('hex')}`;
  const project = await makeProject(client, {
    paymentSecretKey: key,
    checkoutTestSuccessUrl: 'https://shop.example/thanks',
    checkoutTestCancelUrl: 'https://shop.example/pricing',
  });
  const plan = await makePlan(client, project.slug, { name: 'Pro', basePrice: 29 });
  return { key, slug: project.slug as string, shareId: project.shareId as string, planId: plan.id as number };
}

type Shop = Awaited<ReturnType<typeof shop>>;

/** What reached the fake Stripe with this project's key. */
const stripeCalls = (key: string) => fake.requests.filter((request) => request.apiKey === key);
/** Sessions asked for: a POST the Stripe client sends again (its network retry) keeps its idempotency key. */
const sessionCreates = (key: string) => {
  const posts = stripeCalls(key).filter((request) => request.method === 'POST');
  expect(posts.every((request) => request.idempotencyKey)).toBe(true);
  return new Set(posts.map((request) => request.idempotencyKey)).size;
};

let lastAddress = 1;
/** An address of this machine that no other client of this file uses. */
const newAddress = () => {
  lastAddress++;
  return `127.0.${Math.floor(lastAddress / 250)}.${(lastAddress % 250) + 2}`;
};

const checkout = (s: Shop, address: string, base = server.url, headers: Record<string, string> = {}) =>
  sendFrom(address, `${base}/api/payments/checkout`, 'POST', { shareId: s.shareId, planId: s.planId }, headers);
const receipt = (s: Shop, sessionId: string, address: string) =>
  sendFrom(
    address,
    `${server.url}/api/payments/receipt?session_id=${encodeURIComponent(sessionId)}&shareId=${s.shareId}`,
    'GET',
  );

/** Sends `count` at once; returns the answers and how long they took. */
async function burst(count: number, send: () => Promise<ApiResponse>) {
  const started = performance.now();
  const answers = await Promise.all(Array.from({ length: count }, send));
  return { answers, ms: Math.round(performance.now() - started) };
}

const statuses = (answers: ApiResponse[]) => {
  const tally: Record<number, number> = {};
  for (const { status } of answers) tally[status] = (tally[status] ?? 0) + 1;
  return tally;
};

/** What every 429 must be: decisions.md's error shape, a whole-second Retry-After, CORS and no-store. */
function expectRateLimited(answer: ApiResponse): number {
  expect(answer.status, answer.text).toBe(429);
  expect(answer.body).toEqual({
    error: { code: 'rate_limited', message: expect.stringMatching(/try again in \d+ s/) },
  });
  expect(answer.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
  expect(answer.headers.get('access-control-allow-origin')).toBe('*');
  expect(answer.headers.get('cache-control')).toBe('no-store');
  expect(answer.headers.get('x-request-id')).toMatch(/\S/);
  return Number(answer.headers.get('retry-after'));
}

/** The start of a second, a little way into it: calls at this time all fall in the same second. */
const withinASecond = (ms: number) => Math.floor(ms / 1000) * 1000 + 200;

describe('30 public payment calls in any 60 s per client address and project', () => {
  test('100 concurrent checkouts from one address: exactly 30 reach Stripe, 70 are 429 with Retry-After; other addresses and other projects are unaffected', async () => {
    const [busy, other] = await Promise.all([shop(), shop()]);
    const address = newAddress();
    clock.ms = withinASecond(Date.now());
    const { answers, ms } = await burst(100, () => checkout(busy, address));
    console.info(
      `[rate-limit] 100 concurrent checkouts from one address: ${JSON.stringify(statuses(answers))} in ${ms} ms`,
    );
    expect(statuses(answers)).toEqual({ 200: LIMIT, 429: 100 - LIMIT });
    expect(sessionCreates(busy.key)).toBe(LIMIT);
    for (const answer of answers.filter((a) => a.status === 429)) {
      // The window frees 60 to 61 s after the first call.
      expect(expectRateLimited(answer)).toBeGreaterThanOrEqual(60);
      expect(Number(answer.headers.get('retry-after'))).toBeLessThanOrEqual(61);
      expect(answer.body.error.message).toContain('the limit per visitor');
    }
    // Everyone else still buys: another visitor of the same page, and the same visitor elsewhere.
    const neighbour = await checkout(busy, newAddress());
    expect(neighbour.status, neighbour.text).toBe(200);
    const elsewhere = await checkout(other, address);
    expect(elsewhere.status, elsewhere.text).toBe(200);
    expect(sessionCreates(busy.key)).toBe(LIMIT + 1);
  });

  test('a header names no one here: 31 checkouts from one address, each with another X-Forwarded-For, are 30 and one 429', async () => {
    const s = await shop();
    const address = newAddress();
    clock.ms = withinASecond(Date.now() + 1_800_000);
    let n = 0;
    const { answers } = await burst(LIMIT + 1, () =>
      checkout(s, address, server.url, {
        'x-forwarded-for': `203.0.113.${++n}`,
        'x-pricing-cdn-origin': 'a-guess',
        'cloudfront-viewer-address': `203.0.113.${n}:443`,
      }),
    );
    expect(statuses(answers)).toEqual({ 200: LIMIT, 429: 1 });
  });

  test('Retry-After is accurate: a second earlier is still 429, at Retry-After the call goes through', async () => {
    const s = await shop();
    const address = newAddress();
    const start = withinASecond(Date.now() + 3_600_000);
    clock.ms = start;
    await burst(LIMIT, () => checkout(s, address));
    clock.ms = start + 500;
    const retryAfter = expectRateLimited(await checkout(s, address));
    clock.ms = start + 500 + (retryAfter - 1) * 1000;
    expectRateLimited(await checkout(s, address));
    expect(sessionCreates(s.key)).toBe(LIMIT);
    clock.ms = start + 500 + retryAfter * 1000;
    const after = await checkout(s, address);
    expect(after.status, after.text).toBe(200);
    expect(sessionCreates(s.key)).toBe(LIMIT + 1);
  });

  test('a sliding window, not a fixed minute: 30 calls late in one minute leave no room early in the next', async () => {
    const s = await shop();
    const address = newAddress();
    // One second before a minute's end: a per-minute counter would allow 30 more a second later.
    const minuteEnd = Math.ceil((Date.now() + 7_200_000) / 60_000) * 60_000;
    clock.ms = minuteEnd - 800;
    expect(statuses((await burst(LIMIT, () => checkout(s, address))).answers)).toEqual({ 200: LIMIT });
    clock.ms = minuteEnd + 1_000;
    expectRateLimited(await checkout(s, address));
    clock.ms = minuteEnd + 30_000;
    expectRateLimited(await checkout(s, address));
    // Half the calls 30 s later: the window then holds 15 + 15 until the first 15 leave it.
    const later = withinASecond(minuteEnd + 61_000);
    clock.ms = later;
    expect(statuses((await burst(15, () => checkout(s, address))).answers)).toEqual({ 200: 15 });
    clock.ms = later + 30_000;
    expect(statuses((await burst(16, () => checkout(s, address))).answers)).toEqual({ 200: 15, 429: 1 });
    clock.ms = later + 61_000;
    expect(statuses((await burst(16, () => checkout(s, address))).answers)).toEqual({ 200: 15, 429: 1 });
    expect(sessionCreates(s.key)).toBe(LIMIT + 45);
  });
});

describe('600 public payment calls in any 60 s per project', () => {
  test('a client refused by its own limit spends none of the project’s; 600 calls of many clients fill it, then every client waits', async () => {
    const [s, other] = await Promise.all([shop(), shop()]);
    clock.ms = withinASecond(Date.now() + 5_400_000);
    // One client sends 100: 30 pass, and the 70 it was refused do not count for the project.
    const firstClient = newAddress();
    expect(statuses((await burst(100, () => checkout(s, firstClient))).answers)).toEqual({
      200: LIMIT,
      429: 100 - LIMIT,
    });
    // 19 more clients of 30 each: 600 in all.
    for (let client = 0; client < PROJECT_LIMIT / LIMIT - 1; client++) {
      const address = newAddress();
      expect(statuses((await burst(LIMIT, () => checkout(s, address))).answers)).toEqual({ 200: LIMIT });
    }
    expect(sessionCreates(s.key)).toBe(PROJECT_LIMIT);
    clock.ms += 2_000;
    const refused = await checkout(s, newAddress());
    const retryAfter = expectRateLimited(refused);
    expect(retryAfter).toBeGreaterThanOrEqual(58);
    expect(refused.body.error.message).toContain(`This pricing page has taken ${PROJECT_LIMIT} payment calls`);
    expect(sessionCreates(s.key)).toBe(PROJECT_LIMIT);
    const elsewhere = await checkout(other, newAddress());
    expect(elsewhere.status, elsewhere.text).toBe(200);
  });
});

describe('receipts', () => {
  test('1,000 invented session ids: 404 each, zero Stripe calls, and none of the budget spent', async () => {
    const s = await shop();
    const address = newAddress();
    clock.ms = withinASecond(Date.now() + 10_800_000);
    const before = stripeCalls(s.key).length;
    for (let round = 0; round < 20; round++) {
      const { answers } = await burst(50, () => receipt(s, `cs_test_${randomBytes(12).toString('hex')}`, address));
      expect(statuses(answers)).toEqual({ 404: 50 });
      expect(answers[0]?.body.error.code).toBe('not_found');
    }
    expect(stripeCalls(s.key).length - before).toBe(0);
    // The whole window is still there for checkouts.
    expect(statuses((await burst(LIMIT, () => checkout(s, address))).answers)).toEqual({ 200: LIMIT });
  });

  test("another project's session, even on the same Stripe account, is a 404 that never reaches Stripe", async () => {
    const owner = await shop();
    const other = await shop();
    const address = newAddress();
    clock.ms = withinASecond(Date.now() + 14_400_000);
    const created = await checkout(owner, address);
    fake.complete(created.body.sessionId);
    const before = fake.requests.length;
    const answer = await receipt(other, created.body.sessionId, address);
    expect([answer.status, answer.body.error?.code]).toEqual([404, 'not_found']);
    expect(fake.requests.length).toBe(before);
    expect((await receipt(owner, created.body.sessionId, address)).status).toBe(200);
  });

  test('receipts of real sessions count in the same limit as checkouts', async () => {
    const s = await shop();
    const address = newAddress();
    const start = withinASecond(Date.now() + 18_000_000);
    clock.ms = start;
    const first = await checkout(s, address);
    fake.complete(first.body.sessionId);
    expect(statuses((await burst(LIMIT - 2, () => checkout(s, address))).answers)).toEqual({ 200: LIMIT - 2 });
    expect((await receipt(s, first.body.sessionId, address)).status).toBe(200);
    const reads = stripeCalls(s.key).filter((request) => request.method === 'GET').length;
    const refused = await receipt(s, first.body.sessionId, address);
    const retryAfter = expectRateLimited(refused);
    expectRateLimited(await checkout(s, address));
    expect(stripeCalls(s.key).filter((request) => request.method === 'GET').length).toBe(reads);
    // Another visitor reads it meanwhile.
    expect((await receipt(s, first.body.sessionId, newAddress())).status).toBe(200);
    clock.ms = start + retryAfter * 1000;
    expect((await receipt(s, first.body.sessionId, address)).status).toBe(200);
  });
});

describe('across instances', () => {
  /** A second `npm start` on the same table and Stripe: another process, as another Lambda instance would be. */
  let second: ChildProcess | undefined;
  let secondUrl = '';
  const systemServer = useLocalServer();

  beforeAll(async () => {
    const port = await freePort();
    second = spawn(process.execPath, ['--import', 'tsx', 'scripts/start.ts'], {
      cwd: resolve(import.meta.dirname, '../..'),
      env: {
        ...process.env,
        PORT: String(port),
        LOG_LEVEL: 'silent',
        AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    secondUrl = `http://127.0.0.1:${port}`;
    let output = '';
    await new Promise<void>((ready, fail) => {
      const timer = setTimeout(() => fail(new Error(`second server did not start:\n${output}`)), 60_000);
      const onData = (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes(`listening on ${secondUrl}`)) {
          clearTimeout(timer);
          ready();
        }
      };
      second?.stdout?.on('data', onData);
      second?.stderr?.on('data', onData);
      second?.once('exit', (code) => fail(new Error(`second server exited ${code}:\n${output}`)));
    });
  }, 90_000);

  afterAll(async () => {
    if (!second || second.exitCode !== null) return;
    const exited = new Promise((done) => second?.once('exit', done));
    second.kill('SIGTERM');
    await exited;
  });

  test('two server processes on one table: 100 concurrent checkouts from one address split between them, exactly 30 reach Stripe', async () => {
    // Both use the system clock here: the limit is held by the table, not by either process.
    const s = await shop(systemServer.client(api.key));
    const address = newAddress();
    const { answers, ms } = await burst(
      100,
      (() => {
        let n = 0;
        return () => checkout(s, address, n++ % 2 === 0 ? systemServer.url : secondUrl);
      })(),
    );
    console.info(
      `[rate-limit] 100 concurrent checkouts over two processes: ${JSON.stringify(statuses(answers))} in ${ms} ms`,
    );
    expect(statuses(answers)).toEqual({ 200: LIMIT, 429: 100 - LIMIT });
    expect(sessionCreates(s.key)).toBe(LIMIT);
    for (const answer of answers.filter((a) => a.status === 429)) expectRateLimited(answer);
  });
});

describe("an experiment's views: 300 counted in any 60 s per client address and project", () => {
  const VIEW_LIMIT = limits.experimentViewsPerClient;

  /** A running experiment on the shop: Pro at 29 or at 39. */
  async function experiment(s: Shop) {
    const base = `/api/v1/projects/${s.slug}/experiments`;
    const created = await api.post(base, {
      name: 'Pro at 39',
      variants: [
        { key: 'a', weight: 1, plans: [] },
        { key: 'b', weight: 1, plans: [{ planId: s.planId, basePrice: 39 }] },
      ],
    });
    expect((await api.post(`${base}/${created.body.id}/start`)).status).toBe(200);
    return async () => {
      const results = await api.get(`${base}/${created.body.id}/results`);
      return results.body.variants.reduce((sum: number, v: { visitors: number }) => sum + v.visitors, 0) as number;
    };
  }

  let visitors = 0;
  const view = (s: Shop, address: string) =>
    sendFrom(address, `${server.url}/api/share/${s.shareId}/views`, 'POST', { visitor: `rl${++visitors}` });

  test('past the limit a view is 204 and counts nothing; the same client still buys, other clients still count, and a minute later it counts again', async () => {
    const s = await shop();
    const counted = await experiment(s);
    const address = newAddress();
    const start = withinASecond(Date.now() + 9_000_000);
    clock.ms = start;
    // New visitors each, 20 at a time (as many pages at once), 20 past the limit.
    const answers: ApiResponse[] = [];
    for (let sent = 0; sent < VIEW_LIMIT + 20; sent += 20)
      answers.push(...(await burst(20, () => view(s, address))).answers);
    expect(statuses(answers)).toEqual({ 204: VIEW_LIMIT + 20 });
    expect(await counted()).toBe(VIEW_LIMIT);
    // Views have windows of their own: the flood took none of this client's checkouts.
    const bought = await checkout(s, address);
    expect(bought.status, bought.text).toBe(200);
    expect((await view(s, newAddress())).status).toBe(204);
    expect(await counted()).toBe(VIEW_LIMIT + 1);
    clock.ms = start + 61_000;
    expect((await view(s, address)).status).toBe(204);
    expect(await counted()).toBe(VIEW_LIMIT + 2);
  });
});
