import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { freePort } from '#dev/dynamodb-local.ts';
import { ApiClient } from '../fixtures/api.ts';
import { ROOT, runCli, runScript, TSX } from '../fixtures/cli.ts';

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
  const child = spawn(TSX, ['scripts/start.ts'], { cwd: ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
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

/** The operator CLI against the DynamoDB Local that `npm start` embeds. */
const cli = (dynamoPort: number, args: string[]) =>
  runCli(args, { DYNAMODB_ENDPOINT: `http://127.0.0.1:${dynamoPort}`, TABLE_NAME: TABLE });

async function createKey(dynamoPort: number): Promise<string> {
  const owner = `start-${randomUUID().slice(0, 8)}`;
  const result = await cli(dynamoPort, ['keys', 'create', '--owner', owner, '--permission', 'read_write', '--json']);
  expect(result.stderr).toBe('');
  expect(result.status).toBe(0);
  return (JSON.parse(result.stdout) as { key: string }).key;
}

const listening = (port: number) => `listening on http://127.0.0.1:${port}`;

describe('npm start (scripts/start.ts)', () => {
  afterEach(killEverything);
  afterAll(async () => {
    await killEverything();
    for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
  });

  it(
    'keeps data in DATA_DIR across a restart, and Ctrl-C stops DynamoDB Local with it',
    async () => {
      const { port, dynamoPort } = await ports();
      const dataDir = join(freshDir(), 'data');
      const env = serviceEnv({ PORT: String(port), DYNAMODB_PORT: String(dynamoPort), DATA_DIR: dataDir });

      const first = startService(env);
      await waitForOutput(first, listening(port));
      expect(first.stdout).toContain(TABLE);
      expect(first.stdout).toContain(dataDir);
      expect(javaOnPort(dynamoPort)).toHaveLength(1);

      const key = await createKey(dynamoPort);
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
    'DATA_DIR=:memory: serves requests and stops cleanly',
    async () => {
      const { port, dynamoPort } = await ports();
      const service = startService(
        serviceEnv({ PORT: String(port), DYNAMODB_PORT: String(dynamoPort), DATA_DIR: ':memory:' }),
      );
      await waitForOutput(service, listening(port));
      expect(service.stdout).toContain('in memory');

      const key = await createKey(dynamoPort);
      const created = await new ApiClient(`http://127.0.0.1:${port}`, key).post('/api/v1/projects', {
        name: 'Ephemeral',
      });
      expect(created.status).toBe(201);

      process.kill(service.child.pid as number, 'SIGINT');
      expect(await waitForExit(service)).toEqual({ code: 0, signal: null });
      expect(javaOnPort(dynamoPort)).toEqual([]);
      expect(await portIsFree(dynamoPort)).toBe(true);
      expect(existsSync(join(ROOT, ':memory:'))).toBe(false);
    },
    SLOW,
  );

  it(
    'npm run seed beside it: the printed demo page embeds the widget, and a plan button’s checkout reaches the built-in fake Stripe',
    async () => {
      const { port, dynamoPort } = await ports();
      const service = startService(
        serviceEnv({ PORT: String(port), DYNAMODB_PORT: String(dynamoPort), DATA_DIR: ':memory:' }),
      );
      await waitForOutput(service, listening(port));
      const fakeStripe = /the fake Stripe at (http:\/\/127\.0\.0\.1:\d+)/.exec(service.stdout)?.[1];
      expect(fakeStripe, service.stdout).toBeDefined();

      const seeded = await runScript('scripts/seed.ts', [], {
        PORT: String(port),
        DYNAMODB_PORT: String(dynamoPort),
        DYNAMODB_ENDPOINT: undefined,
        TABLE_NAME: TABLE,
      });
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

      process.kill(service.child.pid as number, 'SIGINT');
      expect(await waitForExit(service)).toEqual({ code: 0, signal: null });
      expect(await portIsFree(port)).toBe(true);
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
