import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { DynamoDBClient, ListTablesCommand, ScanCommand } from '@aws-sdk/client-dynamodb';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createDocumentClient } from '#db/client.ts';
import { dynamoLocalJar, freePort } from '#dev/dynamodb-local.ts';
import { startFakeStripe } from '#dev/fake-stripe/index.ts';
import { findLocalCredential } from '#dev/local-credential.ts';
import { ApiClient } from '../fixtures/api.ts';
import { ROOT, runCli, runScript } from '../fixtures/cli.ts';
import { makePlan, makeProject } from '../fixtures/factories.ts';
import { slowRequest } from '../fixtures/slow-request.ts';
import { eventually, startReceiver } from '../fixtures/webhook-receiver.ts';

const TABLE = 'pricing-start-test';
const SLOW = 120_000;

interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

interface Service {
  child: ChildProcess;
  readonly stdout: string;
  readonly stderr: string;
  closed: Promise<Exit>;
}

/** Everything this file started, so that no process (and no Java) outlives a failing test. */
const started = new Set<Service>();
const javaPorts = new Set<number>();
const tempDirs: string[] = [];

/** The environment of a new user who runs `npm start`: no DYNAMODB_ENDPOINT, so DynamoDB Local is embedded. */
function serviceEnv(overrides: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    TABLE_NAME: TABLE,
    LOG_LEVEL: 'silent',
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    // Its own fake Stripe, on any free port, as a new user's would be on 12111.
    FAKE_STRIPE_PORT: '0',
    ...overrides,
  };
  delete env.DYNAMODB_ENDPOINT;
  delete env.STRIPE_API_BASE;
  // Built by start itself, as for a new user.
  delete env.WIDGET_FILE;
  return env;
}

/** `npm start`, without npm: tsx runs scripts/start.ts in a process group of its own. */
function startService(env: NodeJS.ProcessEnv): Service {
  const port = Number(env.DYNAMODB_PORT);
  if (Number.isInteger(port)) javaPorts.add(port);
  // As `npm start` runs it: node with tsx's loader, one process, so a signal reaches start itself
  // (the tsx CLI relays signals to a child and kills it 30 ms later, which can cut a drain).
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/start.ts'], {
    cwd: ROOT,
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const closed = new Promise<Exit>((resolve) => {
    child.once('error', () => resolve({ code: null, signal: null }));
    child.once('close', (code, signal) => resolve({ code, signal }));
  });
  const service: Service = {
    child,
    closed,
    get stdout() {
      return stdout;
    },
    get stderr() {
      return stderr;
    },
  };
  started.add(service);
  void closed.then(() => started.delete(service));
  return service;
}

const describeOutput = (service: Service) => `stdout:\n${service.stdout}\nstderr:\n${service.stderr}`;

/** Resolves once stdout contains `text`; fails when the process exits first or after `timeoutMs`. */
async function waitForOutput(service: Service, text: string, timeoutMs = 60_000): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  let check = () => {};
  try {
    await Promise.race([
      new Promise<void>((resolve) => {
        // Runs after the listener that collects stdout, which was attached first.
        check = () => {
          if (service.stdout.includes(text)) resolve();
        };
        service.child.stdout?.on('data', check);
        check();
      }),
      service.closed.then((exit) => {
        throw new Error(`start exited (${JSON.stringify(exit)}) before printing "${text}"\n${describeOutput(service)}`);
      }),
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`no "${text}" within ${timeoutMs} ms\n${describeOutput(service)}`)),
          timeoutMs,
        );
      }),
    ]);
  } finally {
    clearTimeout(timer);
    service.child.stdout?.off('data', check);
  }
}

/** Waits for the process to end; a hang guard, not a timing assertion. */
async function waitForExit(service: Service, timeoutMs = 30_000): Promise<Exit> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      service.closed,
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`start did not exit within ${timeoutMs} ms\n${describeOutput(service)}`)),
          timeoutMs,
        );
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** Pids of DynamoDB Local processes serving `port` (its command line carries `-port <port>`). */
function javaOnPort(port: number): number[] {
  const result = spawnSync('pgrep', ['-f', `DynamoDBLocal\\.jar.* -port ${port}( |$)`], { encoding: 'utf8' });
  return result.stdout
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map(Number);
}

async function killEverything(): Promise<void> {
  for (const service of [...started]) {
    const pid = service.child.pid;
    if (pid === undefined) continue;
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // the group is gone already
    }
    await waitForExit(service, 10_000).catch(() => undefined);
  }
  for (const port of javaPorts) {
    for (const pid of javaOnPort(port)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // exited meanwhile
      }
    }
  }
}

async function ports(): Promise<{ port: number; dynamoPort: number }> {
  const port = await freePort();
  let dynamoPort = await freePort();
  while (dynamoPort === port) dynamoPort = await freePort();
  return { port, dynamoPort };
}

function freshDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'pricing-start-'));
  tempDirs.push(dir);
  return dir;
}

/**
 * The operator CLI against the DynamoDB Local that `npm start` embeds, found as an operator's
 * CLI finds it: from DYNAMODB_PORT and DATA_DIR (no endpoint, no credential given).
 */
const cli = (env: NodeJS.ProcessEnv, args: string[]) =>
  runCli(args, {
    DYNAMODB_ENDPOINT: undefined,
    DYNAMODB_CREDENTIAL_FILE: undefined,
    DYNAMODB_PORT: env.DYNAMODB_PORT,
    DATA_DIR: env.DATA_DIR,
    TABLE_NAME: TABLE,
  });

async function createKey(env: NodeJS.ProcessEnv): Promise<string> {
  const owner = `start-${randomUUID().slice(0, 8)}`;
  const result = await cli(env, ['keys', 'create', '--owner', owner, '--permission', 'read_write', '--json']);
  expect(result.stderr).toBe('');
  expect(result.status).toBe(0);
  return (JSON.parse(result.stdout) as { key: string }).key;
}

const listening = (port: number) => `listening on http://127.0.0.1:${port}`;

const modeOf = (path: string) => statSync(path).mode & 0o777;

/** A DynamoDB client on the embedded DynamoDB Local with credentials of our choosing (traffic stays on 127.0.0.1). */
function dynamoAs(dynamoPort: number, accessKeyId: string, region = 'us-east-1', secretAccessKey = 'local') {
  return new DynamoDBClient({
    endpoint: `http://127.0.0.1:${dynamoPort}`,
    region,
    credentials: { accessKeyId, secretAccessKey },
    maxAttempts: 1,
  });
}

/** What a client with these credentials sees of the table: its table list, and a Scan of TABLE (or the error). */
async function whatItSees(client: DynamoDBClient): Promise<{ tables: string[]; scan: string | number }> {
  try {
    const tables = (await client.send(new ListTablesCommand({}))).TableNames ?? [];
    const scan = await client
      .send(new ScanCommand({ TableName: TABLE }))
      .then((page) => page.Count ?? 0)
      .catch((error: Error) => error.name);
    return { tables, scan };
  } finally {
    client.destroy();
  }
}

/** Listening TCP sockets (address and port) of every process in a process group, read from /proc. */
function listeningSocketsOfGroup(pgid: number): { address: string; port: number }[] {
  const inodes = new Set<string>();
  for (const pid of readdirSync('/proc').filter((name) => /^[0-9]+$/.test(name))) {
    try {
      // Field 5 of /proc/<pid>/stat is the process group; the command may hold spaces, so count after ')'.
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const group = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
      if (group !== pgid) continue;
      for (const fd of readdirSync(`/proc/${pid}/fd`)) {
        const target = readlinkSync(`/proc/${pid}/fd/${fd}`, { encoding: 'utf8' });
        const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
        if (inode) inodes.add(inode);
      }
    } catch {
      // the process ended meanwhile
    }
  }
  const sockets: { address: string; port: number }[] = [];
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      const [local, , state] = [fields[1], fields[2], fields[3]];
      if (state !== '0A' || !local || !inodes.has(fields[9] ?? '')) continue; // 0A: LISTEN
      const [hexAddress = '', hexPort = ''] = local.split(':');
      sockets.push({ address: decodeAddress(hexAddress), port: Number.parseInt(hexPort, 16) });
    }
  }
  return sockets;
}

/** /proc/net/tcp{,6} addresses: little-endian 32-bit words. */
function decodeAddress(hex: string): string {
  const words = hex.match(/.{8}/g) ?? [];
  const bytes = words.flatMap((word) => (word.match(/../g) ?? []).reverse().map((b) => Number.parseInt(b, 16)));
  if (bytes.length === 4) return bytes.join('.');
  if (bytes.slice(0, 10).every((b) => b === 0) && bytes[10] === 0xff && bytes[11] === 0xff) {
    return bytes.slice(12).join('.');
  }
  if (bytes.every((b, i) => b === (i === 15 ? 1 : 0))) return '::1';
  return bytes.every((b) => b === 0) ? '::' : bytes.map((b) => b.toString(16).padStart(2, '0')).join('');
}

/** `npm run seed` against the service started on these ports (and DATA_DIR, when not in memory). */
function seedBeside(options: {
  port: number;
  dynamoPort: number;
  stripeApiBase: string;
  dataDir?: string;
  args?: string[];
}) {
  return runScript('scripts/seed.ts', options.args ?? [], {
    PORT: String(options.port),
    DYNAMODB_PORT: String(options.dynamoPort),
    DYNAMODB_ENDPOINT: undefined,
    DYNAMODB_CREDENTIAL_FILE: undefined,
    ...(options.dataDir ? { DATA_DIR: options.dataDir } : {}),
    TABLE_NAME: TABLE,
    STRIPE_API_BASE: options.stripeApiBase,
  });
}

/** Checkout as `customerId` and pays on the fake Stripe's page, as a visitor of the demo does. */
async function buyOnFakeStripe(port: number, shareId: string, planId: number | undefined, customerId: string) {
  const bought = await fetch(`http://127.0.0.1:${port}/api/payments/checkout`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ shareId, planId, customerId }),
  });
  expect(bought.status).toBe(200);
  const { url: payUrl, sessionId } = (await bought.json()) as { url: string; sessionId: string };
  const paid = await fetch(payUrl, {
    method: 'POST',
    redirect: 'manual',
    body: new URLSearchParams({ email: `${customerId}@example.com` }),
  });
  expect(paid.status).toBe(303);
  return sessionId;
}

/** Polls for up to 10 s: webhooks arrive after the payment's redirect. */
async function until(check: () => Promise<boolean>): Promise<boolean> {
  for (let i = 0; i < 100 && !(await check()); i++) await new Promise((r) => setTimeout(r, 100));
  return check();
}

describe('npm start (scripts/start.ts)', () => {
  afterEach(killEverything);
  afterAll(async () => {
    await killEverything();
    for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
  });

  it(
    'a bad PORT fails at once: exit 1 and one stderr line naming PORT, nothing started',
    async () => {
      const { dynamoPort } = await ports();
      const dataDir = join(freshDir(), 'data');
      const service = startService(serviceEnv({ PORT: 'abc', DYNAMODB_PORT: String(dynamoPort), DATA_DIR: dataDir }));

      expect(await waitForExit(service)).toEqual({ code: 1, signal: null });
      expect(service.stdout).toBe('');
      const lines = service.stderr.split('\n').filter((line) => line.trim() !== '');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/\bPORT\b/);
      expect(lines[0]).toContain('abc');
      expect(lines[0]).not.toMatch(/\bat .*\.ts:\d+/);
      expect(javaOnPort(dynamoPort)).toEqual([]);
      expect(existsSync(dataDir)).toBe(false);
    },
    SLOW,
  );

  it(
    'registers every project with a payment key with the fake Stripe at start, so purchases after a restart still reach the service',
    async () => {
      const { port, dynamoPort } = await ports();
      const dataDir = join(freshDir(), 'data');
      const env = serviceEnv({ PORT: String(port), DYNAMODB_PORT: String(dynamoPort), DATA_DIR: dataDir });
      const first = startService(env);
      await waitForOutput(first, listening(port));
      // A fresh table has no project to register.
      expect(first.stdout).not.toContain('registered with it');
      const firstStripe = /the fake Stripe at (http:\/\/127\.0\.0\.1:\d+)/.exec(first.stdout)?.[1];
      // --json: one line for scripts, as the README's walk-through reads it.
      const seeded = await seedBeside({
        port,
        dynamoPort,
        stripeApiBase: firstStripe as string,
        dataDir,
        args: ['--json'],
      });
      expect(seeded.status, seeded.stderr).toBe(0);
      expect(seeded.stdout.trim().split('\n')).toHaveLength(1);
      const { key, slug, shareId, demoUrl } = JSON.parse(seeded.stdout) as Record<string, string>;
      expect(key).toMatch(/^ppk_/);
      expect(demoUrl).toBe(`http://127.0.0.1:${port}/demo/${shareId}`);
      const api = new ApiClient(`http://127.0.0.1:${port}`, key);
      const before = (await api.get(`/api/v1/projects/${slug}`)).body as { shareId: string; updatedAt: string };
      const share = (await (await fetch(`http://127.0.0.1:${port}/api/share/${before.shareId}`)).json()) as {
        plans: Array<{ id: number; isPopular: boolean }>;
      };
      const pro = share.plans.find((plan) => plan.isPopular)?.id;
      // A purchase before the restart: the fake Stripe keeps it in DATA_DIR, so its receipt outlives it.
      const boughtBefore = await buyOnFakeStripe(port, before.shareId, pro, 'user_6');
      expect((await receiptOf(boughtBefore)).status).toBe(200);
      function receiptOf(sessionId: string) {
        return fetch(`http://127.0.0.1:${port}/api/payments/receipt?session_id=${sessionId}&shareId=${before.shareId}`);
      }
      process.kill(first.child.pid as number, 'SIGINT');
      expect(await waitForExit(first)).toEqual({ code: 0, signal: null });

      // The new fake Stripe knows no endpoint until npm start registers the project's.
      const second = startService(env);
      await waitForOutput(second, listening(port));
      expect(second.stdout).toContain('webhooks of 1 project(s) registered with it');
      expect(second.stderr).toBe('');
      const project = (await api.get(`/api/v1/projects/${slug}`)).body as {
        updatedAt: string;
        paymentWebhookConnected: boolean;
      };
      // The fake derives the same secret for the same account and URL: nothing is rewritten.
      expect(project).toMatchObject({ updatedAt: before.updatedAt, paymentWebhookConnected: true });
      const afterRestart = await receiptOf(boughtBefore);
      expect(afterRestart.status, await afterRestart.clone().text()).toBe(200);
      expect(await afterRestart.json()).toMatchObject({ customer: { email: 'user_6@example.com' } });
      await buyOnFakeStripe(port, before.shareId, pro, 'user_7');
      const planOf = async () =>
        ((await api.get(`/api/v1/projects/${slug}/customers/user_7/entitlements`)).body as { planId: number }).planId;
      expect(await until(async () => (await planOf()) === pro)).toBe(true);

      process.kill(second.child.pid as number, 'SIGINT');
      expect(await waitForExit(second)).toEqual({ code: 0, signal: null });
    },
    SLOW,
  );

  it('npm run seed without a running service says to start it first', async () => {
    const { port } = await ports();
    const seeded = await runScript('scripts/seed.ts', [], { PORT: String(port) });
    expect(seeded.status).toBe(1);
    expect(seeded.stderr).toContain('npm start');
    expect(seeded.stdout).toBe('');
  });
});
/** One running `npm start`: the tests that share it leave it running, the last stops it. */
interface Running {
  service: Service;
  env: NodeJS.ProcessEnv;
  port: number;
  dynamoPort: number;
  dataDir: string;
}

async function startRunning(dataDir: string): Promise<Running> {
  const { port, dynamoPort } = await ports();
  const env = serviceEnv({ PORT: String(port), DYNAMODB_PORT: String(dynamoPort), DATA_DIR: dataDir });
  const service = startService(env);
  await waitForOutput(service, listening(port));
  return { service, env, port, dynamoPort, dataDir };
}

// Each start costs seconds (Java among them): the checks of a running service share one,
// and the test that stops it runs last.
describe('npm start with DATA_DIR=:memory:', () => {
  let memory: Running;
  beforeAll(async () => {
    memory = await startRunning(':memory:');
  }, SLOW);
  afterAll(async () => {
    await killEverything();
    for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
  });

  it(
    'npm run seed beside it: the printed demo page embeds the widget, and a plan button’s checkout reaches the built-in fake Stripe',
    async () => {
      const { service, port, dynamoPort } = memory;
      const fakeStripe = /the fake Stripe at (http:\/\/127\.0\.0\.1:\d+)/.exec(service.stdout)?.[1];
      expect(fakeStripe, service.stdout).toBeDefined();

      // The fake Stripe's port is a free one here: the seed registers the webhook there.
      const seeded = await seedBeside({ port, dynamoPort, stripeApiBase: fakeStripe as string });
      expect(seeded.stderr).toBe('');
      expect(seeded.status).toBe(0);
      const demoUrl = new RegExp(`http://127\\.0\\.0\\.1:${port}/demo/([A-Za-z0-9_-]+)`).exec(seeded.stdout);
      expect(demoUrl, seeded.stdout).not.toBeNull();
      const [url, shareId] = demoUrl as RegExpExecArray;

      const page = await fetch(url);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain(`data-pricing-id="${shareId}"`);
      const widget = await fetch(`http://127.0.0.1:${port}/widget.js`);
      expect(widget.status).toBe(200);
      expect(await widget.text()).toContain('pricing-table');

      const share = (await (await fetch(`http://127.0.0.1:${port}/api/share/${shareId}`)).json()) as {
        paymentsConnected: boolean;
        features: Array<{ featureType: string }>;
        plans: Array<{ id: number; isPopular: boolean; isFree: boolean; isPerUserPricing: boolean }>;
      };
      expect(share.paymentsConnected).toBe(true);
      expect(share.features.map((f) => f.featureType).sort()).toEqual(
        expect.arrayContaining(['Limits', 'Standart', 'Usage Based']),
      );
      const popular = share.plans.find((plan) => plan.isPopular);
      expect(share.plans.some((plan) => plan.isFree)).toBe(true);
      expect(share.plans.some((plan) => plan.isPerUserPricing)).toBe(true);
      const checkout = await fetch(`http://127.0.0.1:${port}/api/payments/checkout`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ shareId, planId: popular?.id }),
      });
      expect(checkout.status).toBe(200);
      expect(((await checkout.json()) as { url: string }).url).toMatch(new RegExp(`^${fakeStripe}/pay/cs_test_`));

      // Know your customers (README): buy Pro as user_42 on the fake's page, the signed
      // webhooks come back, entitlements show Pro; cancel on the fake's dashboard: free again.
      const key = /API key for it \(shown once\): (ppk_\S+)/.exec(seeded.stdout)?.[1];
      const slug = /Demo project "([^"]+)"/.exec(seeded.stdout)?.[1];
      const v1 = (path: string) =>
        fetch(`http://127.0.0.1:${port}/api/v1/projects/${slug}${path}`, {
          headers: { authorization: `Bearer ${key}` },
        });
      const demo = await fetch(`${url}?customer=user_42`);
      expect(await demo.text()).toContain('data-customer-id="user_42"');
      const entitlements = async () =>
        (await (await v1('/customers/user_42/entitlements')).json()) as { planId: number; status: string | null };
      await buyOnFakeStripe(port, shareId as string, popular?.id, 'user_42');
      expect(await until(async () => (await entitlements()).planId === popular?.id)).toBe(true);
      const customer = (await (await v1('/customers/user_42')).json()) as {
        email: string;
        subscription: { status: string; stripeSubscriptionId: string };
      };
      expect(customer).toMatchObject({ email: 'user_42@example.com', subscription: { status: 'trialing' } });
      const cancel = await fetch(
        `${fakeStripe}/dashboard/subscriptions/${customer.subscription.stripeSubscriptionId}/cancel`,
        { method: 'POST', redirect: 'manual' },
      );
      expect(cancel.status).toBe(303);
      const free = share.plans.find((plan) => plan.isFree)?.id;
      expect(await until(async () => (await entitlements()).planId === free)).toBe(true);
      expect(await entitlements()).toMatchObject({ planId: free, status: null });

      // Let customers change plans (README): user_42's canceled subscription cannot change, so
      // the walk-through has user_43 buy Pro, move to Team with 3 seats at once (an upgrade),
      // back to Pro at period end, cancel and resume, and read itself with a customer token.
      const send = (path: string, body?: unknown) =>
        fetch(`http://127.0.0.1:${port}/api/v1/projects/${slug}${path}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
      expect((await send('/customers/user_42/subscription/preview', { planId: popular?.id })).status).toBe(409);
      const team = share.plans.find((plan) => plan.isPerUserPricing)?.id;
      await buyOnFakeStripe(port, shareId as string, popular?.id, 'user_43');
      const subscriptionOf = async (response: Response) => {
        expect(response.status).toBe(200);
        return ((await response.json()) as { subscription: Record<string, unknown> }).subscription;
      };
      const bought = async () => {
        const response = await v1('/customers/user_43');
        if (response.status !== 200) return false;
        const { subscription } = (await response.json()) as { subscription: { status: string } | null };
        return subscription?.status === 'trialing';
      };
      expect(await until(bought)).toBe(true);
      const preview = await send('/customers/user_43/subscription/preview', { planId: team, seats: 3 });
      expect(preview.status).toBe(200);
      expect(await preview.json()).toMatchObject({ nextPeriodAmount: 36 });
      expect(
        await subscriptionOf(await send('/customers/user_43/subscription', { planId: team, seats: 3 })),
      ).toMatchObject({ planId: team, seats: 3, pendingPlanId: null });
      expect(
        await subscriptionOf(await send('/customers/user_43/subscription', { planId: popular?.id, at: 'period_end' })),
      ).toMatchObject({ planId: team, pendingPlanId: popular?.id });
      expect(await subscriptionOf(await send('/customers/user_43/subscription/cancel', {}))).toMatchObject({
        cancelAtPeriodEnd: true,
      });
      expect(await subscriptionOf(await send('/customers/user_43/subscription/resume'))).toMatchObject({
        cancelAtPeriodEnd: false,
      });
      const portal = await send('/customers/user_43/portal', { returnUrl: 'https://acme.example/account' });
      expect(((await portal.json()) as { url: string }).url).toMatch(new RegExp(`^${fakeStripe}/`));
      const { token } = (await (await send('/customers/user_43/token')).json()) as { token: string };
      const mine = await fetch(`http://127.0.0.1:${port}/api/share/${shareId}/customer`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(await mine.json()).toMatchObject({ customerId: 'user_43', planId: team, pendingPlanId: popular?.id });
    },
    SLOW,
  );

  it(
    'DATA_DIR=:memory: serves requests and stops cleanly',
    async () => {
      const { service, env, port, dynamoPort } = memory;
      expect(service.stdout).toContain('in memory');
      // The credential of an in-memory run: a private file keyed by the port, for the CLI.
      const credentialFile = findLocalCredential({ dataDir: ':memory:', port: dynamoPort }) ?? '';
      expect(service.stdout).toContain(credentialFile);
      expect(modeOf(credentialFile)).toBe(0o600);
      expect(modeOf(dirname(credentialFile))).toBe(0o700);

      const key = await createKey(env);
      const created = await new ApiClient(`http://127.0.0.1:${port}`, key).post('/api/v1/projects', {
        name: 'Ephemeral',
      });
      expect(created.status).toBe(201);

      process.kill(service.child.pid as number, 'SIGINT');
      expect(await waitForExit(service)).toEqual({ code: 0, signal: null });
      expect(javaOnPort(dynamoPort)).toEqual([]);
      expect(await portIsFree(dynamoPort)).toBe(true);
      expect(await portIsFree(port)).toBe(true);
      expect(existsSync(join(ROOT, ':memory:'))).toBe(false);
      expect(existsSync(credentialFile)).toBe(false);
    },
    SLOW,
  );
});
describe('npm start on a DATA_DIR: its DynamoDB Local answers only to its local credential, a second start on it is refused, a restart keeps its data', () => {
  let onDisk: Running;
  beforeAll(async () => {
    onDisk = await startRunning(join(freshDir(), 'data'));
  }, SLOW);
  afterAll(async () => {
    await killEverything();
    for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
  });

  it(
    "every socket is on loopback, DynamoDB Local's too; any other credential sees no table and none of the data; files are 0600 in a 0700 DATA_DIR",
    async () => {
      const { service, env, port, dynamoPort, dataDir } = onDisk;

      const key = await createKey(env);
      const created = await new ApiClient(`http://127.0.0.1:${port}`, key).post('/api/v1/projects', { name: 'Secret' });
      expect(created.status).toBe(201);

      // The local credential: random, letters and digits, at least 128 bits, in a 0600 file.
      const credentialFile = join(dataDir, 'dynamodb-credential.json');
      expect(service.stdout).toContain(credentialFile);
      const local = JSON.parse(readFileSync(credentialFile, 'utf8')) as {
        accessKeyId: string;
        secretAccessKey: string;
        region: string;
      };
      expect(local.accessKeyId).toMatch(/^[A-Z0-9]{26,}$/);
      expect(local.secretAccessKey).toMatch(/^[A-Za-z0-9]{26,}$/);
      expect(modeOf(credentialFile)).toBe(0o600);
      expect(modeOf(dataDir)).toBe(0o700);
      const files = readdirSync(dataDir);
      expect(files).toContain(`${local.accessKeyId}_${local.region}.db`);
      for (const file of files) {
        // SQLite's -journal comes and goes with each write (the sweeper may be writing): one gone
        // since readdir has no mode left to check; every file still there must be 0600.
        const stat = statSync(join(dataDir, file), { throwIfNoEntry: false });
        if (stat) expect([file, stat.mode & 0o777]).toEqual([file, 0o600]);
      }

      // The service's data (the project and the key's hash) answers to the local credential only.
      const mine = await whatItSees(dynamoAs(dynamoPort, local.accessKeyId, local.region, local.secretAccessKey));
      expect(mine.tables).toEqual([TABLE]);
      expect(mine.scan).toBeGreaterThanOrEqual(2);
      const strangers = [
        dynamoAs(dynamoPort, 'local'),
        dynamoAs(dynamoPort, 'local', 'eu-west-1'),
        dynamoAs(dynamoPort, 'AKIAIOSFODNN7EXAMPLE', 'us-east-1', 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY'),
        dynamoAs(dynamoPort, randomUUID().replaceAll('-', '').toUpperCase(), local.region, local.secretAccessKey),
        dynamoAs(dynamoPort, local.accessKeyId.toLowerCase(), local.region, local.secretAccessKey),
      ];
      for (const stranger of strangers) {
        expect(await whatItSees(stranger)).toEqual({ tables: [], scan: 'ResourceNotFoundException' });
      }
      // Nor can it write into the service's table.
      const writer = createDocumentClient({
        endpoint: `http://127.0.0.1:${dynamoPort}`,
        region: 'us-east-1',
        credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      });
      await expect(
        writer.send(new PutCommand({ TableName: TABLE, Item: { pk: 'minted', sk: 'key' } })),
      ).rejects.toThrow(/non-existent table|not found/i);
      writer.destroy();

      // Every socket npm start opens, DynamoDB Local's included, is on 127.0.0.1 alone.
      const sockets = listeningSocketsOfGroup(service.child.pid as number);
      expect(sockets.map((socket) => socket.port)).toEqual(expect.arrayContaining([port, dynamoPort]));
      for (const socket of sockets) expect(socket).toEqual({ address: '127.0.0.1', port: socket.port });
    },
    SLOW,
  );

  it(
    'a second npm start on a DATA_DIR in use exits 1 with one line saying so, and the first keeps serving',
    async () => {
      const { service: first, env, port, dataDir } = onDisk;

      const other = await ports();
      const second = startService({ ...env, PORT: String(other.port), DYNAMODB_PORT: String(other.dynamoPort) });
      expect(await waitForExit(second)).toEqual({ code: 1, signal: null });
      const lines = second.stderr.split('\n').filter((line) => line.trim() !== '');
      expect(lines).toEqual([expect.stringContaining(`DATA_DIR ${dataDir} is in use`)]);
      expect(lines[0]).toContain(String(first.child.pid));
      expect(javaOnDataDir(dataDir)).toHaveLength(1);
      expect(javaOnPort(other.dynamoPort)).toEqual([]);

      const api = new ApiClient(`http://127.0.0.1:${port}`, await createKey(env));
      expect((await api.post('/api/v1/projects', { name: 'Still' })).status).toBe(201);
    },
    SLOW,
  );

  it(
    'keeps data in DATA_DIR across a restart, and Ctrl-C stops DynamoDB Local with it',
    async () => {
      const { service: first, env, port, dynamoPort, dataDir } = onDisk;
      expect(first.stdout).toContain(TABLE);
      expect(first.stdout).toContain(dataDir);
      expect(javaOnPort(dynamoPort)).toHaveLength(1);

      const key = await createKey(env);
      const api = new ApiClient(`http://127.0.0.1:${port}`, key);
      const created = await api.post('/api/v1/projects', { name: 'Persist' });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ name: 'Persist' });

      // SIGINT to the start process alone: stopping Java is start's job, not the terminal's.
      process.kill(first.child.pid as number, 'SIGINT');
      expect(await waitForExit(first)).toEqual({ code: 0, signal: null });
      expect(first.stderr).toBe('');
      expect(javaOnPort(dynamoPort)).toEqual([]);
      expect(await portIsFree(dynamoPort)).toBe(true);
      expect(await portIsFree(port)).toBe(true);
      expect(readdirSync(dataDir).length).toBeGreaterThan(0);

      const second = startService(env);
      await waitForOutput(second, listening(port));
      const listed = await api.get('/api/v1/projects');
      expect(listed.status).toBe(200);
      expect((listed.body as { projects: Array<{ name: string }> }).projects.map((p) => p.name)).toEqual(['Persist']);

      // Ctrl-C in a terminal signals the whole foreground process group.
      process.kill(-(second.child.pid as number), 'SIGINT');
      expect(await waitForExit(second)).toEqual({ code: 0, signal: null });
      expect(javaOnPort(dynamoPort)).toEqual([]);
      expect(await portIsFree(dynamoPort)).toBe(true);
    },
    SLOW,
  );
});

describe('npm start stops without dropping a request', () => {
  afterEach(killEverything);

  it.each([
    { signal: 'SIGTERM', to: 'start', group: false },
    { signal: 'SIGINT', to: 'the process group, as Ctrl-C does', group: true },
  ] as const)(
    '$signal to $to: no new connection is accepted, every request in flight gets its whole answer, then start exits 0',
    async ({ signal, group }) => {
      const { port, dynamoPort } = await ports();
      // A Stripe of the test's own, whose first answer to each checkout never comes: once the
      // drain has begun the test drops those connections, and the SDK retries.
      const stripe = await startFakeStripe();
      try {
        const env = {
          ...serviceEnv({ PORT: String(port), DYNAMODB_PORT: String(dynamoPort), DATA_DIR: ':memory:' }),
          STRIPE_API_BASE: stripe.url,
          // Long enough that no first attempt times out (and retries, and answers) before all are counted,
          // short enough that a retry after a timeout would still answer inside the 10 s drain.
          STRIPE_TIMEOUT_MS: '8000',
        };
        const service = startService(env);
        await waitForOutput(service, listening(port));
        const base = `http://127.0.0.1:${port}`;
        const api = new ApiClient(base, await createKey(env));
        const project = await makeProject(api, {
          paymentSecretKey: `sk_test_drain${randomUUID().replaceAll('-', '')}`,
          checkoutTestSuccessUrl: 'https://acme.example/thanks',
          checkoutTestCancelUrl: 'https://acme.example/pricing',
        });
        const plan = await makePlan(api, project.slug);

        // Writes whose bodies are still arriving, then checkouts waiting on Stripe: all in flight.
        const writes = Array.from({ length: 4 }, (_, i) =>
          slowRequest(`${base}/api/v1/projects/${project.slug}/features`, {
            headers: { authorization: `Bearer ${api.key}` },
            body: JSON.stringify({ name: `Drained ${i}`, basePrice: 1 }),
          }),
        );
        await Promise.all(writes.map((write) => write.sent));
        const CHECKOUTS = 8;
        stripe.hangNext(CHECKOUTS);
        const checkouts = Array.from({ length: CHECKOUTS }, () =>
          new ApiClient(base)
            .post('/api/payments/checkout', { shareId: project.shareId, planId: plan.id })
            .catch((error: Error) => ({ status: 0, text: `${error.message}: ${String(error.cause)}`, body: {} })),
        );
        const creates = () => stripe.requests.filter((r) => r.path === '/v1/checkout/sessions').length;
        for (const deadline = Date.now() + 20_000; creates() < CHECKOUTS; ) {
          if (Date.now() > deadline) throw new Error(`${creates()} of ${CHECKOUTS} checkouts reached Stripe`);
          await new Promise((resolve) => setTimeout(resolve, 20));
        }

        const pid = service.child.pid as number;
        process.kill(group ? -pid : pid, signal);
        await waitForOutput(service, `finishing ${CHECKOUTS + writes.length} request(s) in flight`);
        const refused = await fetch(`${base}/api/v1/projects`).catch((error: Error) => error);
        expect((refused as Error & { cause?: { code?: string } }).cause?.code).toBe('ECONNREFUSED');
        expect(service.child.exitCode).toBeNull();

        // The checkouts' first attempts fail now rather than at their timeout: the retries are
        // Stripe calls made during the drain.
        stripe.dropHanging();
        for (const write of writes) write.finish();
        for (const write of writes) {
          const answer = await write.answer;
          expect([answer.status, answer.headers.connection]).toEqual([201, 'close']);
          expect(JSON.parse(answer.body)).toMatchObject({ name: expect.stringMatching(/^Drained /) });
        }
        for (const checkout of await Promise.all(checkouts)) {
          expect(checkout.status, checkout.text).toBe(200);
          expect(checkout.body.url).toMatch(new RegExp(`^${stripe.url}/pay/cs_test_`));
        }
        expect(await waitForExit(service)).toEqual({ code: 0, signal: null });
        expect(service.stderr).toBe('');
        expect(javaOnPort(dynamoPort)).toEqual([]);
      } finally {
        await stripe.close();
      }
    },
    SLOW,
  );
});

/** Pids of DynamoDB Local processes (our launcher) serving `dataDir`, read from their command lines. */
function javaOnDataDir(dataDir: string): number[] {
  const pids: number[] = [];
  for (const pid of readdirSync('/proc').filter((name) => /^[0-9]+$/.test(name))) {
    try {
      const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      const state = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0];
      if (state !== 'Z' && args.includes('LoopbackDynamoDBLocal') && args[args.indexOf('-dbPath') + 1] === dataDir) {
        pids.push(Number(pid));
      }
    } catch {
      // the process ended meanwhile
    }
  }
  return pids;
}

/** A pid that no process has now: one of a process that has ended. */
async function deadPid(): Promise<number> {
  const child = spawn('true');
  await new Promise((resolve) => child.once('exit', resolve));
  return child.pid as number;
}

describe('npm start never runs two DynamoDB Local on one DATA_DIR', () => {
  afterEach(killEverything);
  afterAll(async () => {
    await killEverything();
    for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
  });

  it(
    'kill -9 of npm start takes its DynamoDB Local with it: the next start, at once, serves the same data with one Java on DATA_DIR',
    async () => {
      const { port, dynamoPort } = await ports();
      const dataDir = join(freshDir(), 'data');
      const env = serviceEnv({ PORT: String(port), DYNAMODB_PORT: String(dynamoPort), DATA_DIR: dataDir });
      const first = startService(env);
      await waitForOutput(first, listening(port));
      const [firstJava] = javaOnDataDir(dataDir);
      expect(firstJava).toBeDefined();
      const api = new ApiClient(`http://127.0.0.1:${port}`, await createKey(env));
      expect((await api.post('/api/v1/projects', { name: 'Survives' })).status).toBe(201);

      // SIGKILL runs no handler of start's: only the kernel closing its pipes tells Java.
      process.kill(first.child.pid as number, 'SIGKILL');
      expect(await waitForExit(first)).toEqual({ code: null, signal: 'SIGKILL' });
      const second = startService(env);
      await waitForOutput(second, listening(port));
      expect(second.stderr).toBe('');
      const java = javaOnDataDir(dataDir);
      expect(java).toHaveLength(1);
      expect(java).not.toContain(firstJava);
      expect(javaOnPort(dynamoPort)).toEqual(java);

      // The CLI finds the Java that serves the data, and so does the service.
      const again = new ApiClient(`http://127.0.0.1:${port}`, await createKey(env));
      expect((await again.post('/api/v1/projects', { name: 'After' })).status).toBe(201);
      const names = async (client: ApiClient) =>
        ((await client.get('/api/v1/projects')).body as { projects: Array<{ name: string }> }).projects.map(
          (project) => project.name,
        );
      expect(await names(api)).toEqual(['Survives']);
      expect(await names(again)).toEqual(['After']);

      process.kill(second.child.pid as number, 'SIGINT');
      expect(await waitForExit(second)).toEqual({ code: 0, signal: null });
      expect(javaOnDataDir(dataDir)).toEqual([]);
      expect(existsSync(join(dataDir, 'dynamodb-local.pid'))).toBe(false);
    },
    SLOW,
  );

  it(
    'a DynamoDB Local left running on DATA_DIR by a start that is gone is stopped by the next start, which says so',
    async () => {
      const { port, dynamoPort } = await ports();
      const dataDir = join(freshDir(), 'data');
      const env = serviceEnv({ PORT: String(port), DYNAMODB_PORT: String(dynamoPort), DATA_DIR: dataDir });
      // DATA_DIR as start makes it (0700); what the leftover finds in it does not matter.
      mkdirSync(dataDir, { mode: 0o700 });

      // A leftover that does not end by itself (its stdin is held open here), on the same
      // port and data, recorded as the Java of a start that has ended.
      const { jar, libraryPath, cwd } = dynamoLocalJar();
      const leftover = spawn(
        'java',
        [
          `-Djava.library.path=${libraryPath}`,
          '-cp',
          `${join(ROOT, 'dev/loopback')}:${jar}`,
          'LoopbackDynamoDBLocal',
          '-port',
          String(dynamoPort),
          '-dbPath',
          dataDir,
          '-disableTelemetry',
        ],
        { cwd, stdio: 'pipe' },
      );
      const leftoverExit = new Promise((resolve) => leftover.once('exit', resolve));
      try {
        for (const deadline = Date.now() + 30_000; await portIsFree(dynamoPort); ) {
          if (Date.now() > deadline) throw new Error('the leftover DynamoDB Local did not listen');
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        const record = { owner: await deadPid(), java: leftover.pid };
        writeFileSync(join(dataDir, 'dynamodb-local.pid'), JSON.stringify(record), { mode: 0o600 });

        const second = startService(env);
        await waitForOutput(second, listening(port));
        expect(second.stdout).toContain(`Stopped DynamoDB Local (pid ${leftover.pid})`);
        await leftoverExit;
        const java = javaOnDataDir(dataDir);
        expect(java).toHaveLength(1);
        expect(java).not.toContain(leftover.pid);
        const api = new ApiClient(`http://127.0.0.1:${port}`, await createKey(env));
        expect((await api.post('/api/v1/projects', { name: 'Served' })).status).toBe(201);
        process.kill(second.child.pid as number, 'SIGINT');
        expect(await waitForExit(second)).toEqual({ code: 0, signal: null });
      } finally {
        leftover.kill('SIGKILL');
      }
    },
    SLOW,
  );
});

describe('npm start delivers the webhooks a kill -9 interrupted (lifecycle.md §4: an event is never lost)', () => {
  afterEach(killEverything);
  afterAll(async () => {
    await killEverything();
    for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
  });

  it(
    'killed with its delivery under way, or right after the change commits: the restart delivers, with the same webhook-id',
    async () => {
      const receiver = await startReceiver();
      try {
        const { port, dynamoPort } = await ports();
        const dataDir = join(freshDir(), 'data');
        const env = serviceEnv({ PORT: String(port), DYNAMODB_PORT: String(dynamoPort), DATA_DIR: dataDir });
        let service = startService(env);
        await waitForOutput(service, listening(port));
        const api = new ApiClient(`http://127.0.0.1:${port}`, await createKey(env));
        const { slug } = await makeProject(api);
        const base = `/api/v1/projects/${slug}`;
        const plan = await makePlan(api, slug, { name: 'Pro' });
        const endpoint = await api.post(`${base}/webhook-endpoints`, { url: `${receiver.url}/crash` });
        expect(endpoint.status).toBe(201);
        receiver.trust(endpoint.body.secret);
        const restart = async () => {
          process.kill(service.child.pid as number, 'SIGKILL');
          expect(await waitForExit(service)).toEqual({ code: null, signal: 'SIGKILL' });
          service = startService(env);
          await waitForOutput(service, listening(port));
        };

        // The receiver holds the first attempt unanswered: committed and dispatched, not delivered.
        receiver.answer('/crash', 0);
        expect((await api.put(`${base}/customers/held`, { planId: plan.id })).status).toBe(200);
        const [held] = await eventually(
          () => receiver.on('/crash'),
          (r) => r.length === 1,
        );
        await restart();
        const resent = await eventually(
          () => receiver.on('/crash'),
          (r) => r.length === 2,
          30_000,
        );
        expect(resent[1]?.id).toBe(held?.id);
        expect(resent[1]?.body).toMatchObject({ type: 'subscription.created', data: { customerId: 'held' } });
        expect(resent[1]?.verifiedWith).toBe(endpoint.body.secret);

        // Killed as soon as the change answers: its event waits in the outbox or as a pending delivery.
        expect((await api.put(`${base}/customers/sudden`, { planId: plan.id })).status).toBe(200);
        await restart();
        const sudden = await eventually(
          () => receiver.on('/crash').filter((r) => r.body.data.customerId === 'sudden'),
          (r) => r.length >= 1,
          30_000,
        );
        expect(sudden[0]?.verifiedWith).toBe(endpoint.body.secret);
        const log = await eventually(
          () => api.get(`${base}/webhook-endpoints/${endpoint.body.id}/deliveries`),
          (answer) => answer.body.deliveries.every((d: { status: string }) => d.status === 'succeeded'),
        );
        expect(log.body.deliveries).toHaveLength(2);
        process.kill(service.child.pid as number, 'SIGINT');
        expect(await waitForExit(service)).toEqual({ code: 0, signal: null });
      } finally {
        await receiver.close();
      }
    },
    SLOW,
  );
});
