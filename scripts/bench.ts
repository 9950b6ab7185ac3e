import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeStripe } from '#dev/fake-stripe/index.ts';
import { printWarm } from '#dev/warm-cpu.ts';
import { createApiKey } from '#domain/keys/keys.ts';
import { WIDGET_GZIP_BUDGET, widgetSize } from '../widget/build.ts';
import { billingRows } from './bench-billing.ts';
import { compressionRows } from './bench-compression.ts';
import { consumeRows } from './bench-consume.ts';
import { apiCaller, BenchError, KEY_CACHE_TTL_SECONDS, printTable, type Row, range, warmKey } from './bench-harness.ts';
import {
  baselineRows,
  benchEndpoints,
  endpointTimer,
  FEATURES,
  PAYMENT_REQUESTS,
  PLANS,
  seedBenchProject,
} from './bench-reads.ts';
import { printScaleTable } from './bench-scale.ts';
import { startBenchStack } from './bench-stack.ts';
import { entitlementReads, usageRows } from './bench-usage.ts';
import { versionRows } from './bench-versions.ts';
import { webhookRows } from './bench-webhooks.ts';

/**
 * `npm run bench`: seeds one project of 50 features and 20 plans (1,000 assignments)
 * through the HTTP API, then times every read endpoint against a bare DynamoDB Query of
 * the same partition on the same DynamoDB Local (scripts/bench-reads.ts). Each read must stay
 * one DynamoDB request on a warm container; more is a regression and fails the run. The
 * payment endpoints are measured too, against the project's fake Stripe on loopback (their
 * latency includes it). Then the billing, entitlement, compression, usage, consume and
 * version rows (scripts/bench-*.ts), the warm CPU, the scale table and the widget's size.
 *
 * `BENCH_ONLY=warm` seeds the same project and prints only the warm handler CPU and p50 against
 * a bare Query (dev/warm-cpu.ts) and the share throughput; `BENCH_ONLY=scale` only the scale
 * table (scripts/bench-scale.ts); `BENCH_ONLY=consume` only the consume rows, `BENCH_ONLY=webhooks`
 * the rows whose writes carry webhook events (usage, consume, webhooks out).
 * `BENCH_ITERATIONS`: calls per endpoint.
 */

const TABLE_NAME = 'pricing-bench';
const OWNER_ID = 'bench';
const DEFAULT_ITERATIONS = 200;
const SCALE_FAILURE = "a part read's requests grew past 1.5× between 1,000 and 20,000 assignments";

function benchOnly(): 'warm' | 'scale' | 'consume' | 'webhooks' | undefined {
  const raw = process.env.BENCH_ONLY;
  if (raw === undefined || raw.trim() === '') return undefined;
  if (raw === 'warm' || raw === 'scale' || raw === 'consume' || raw === 'webhooks') return raw;
  throw new BenchError(`BENCH_ONLY must be "warm", "scale", "consume", "webhooks" or unset (got "${raw}")`);
}

function iterationCount(): number {
  const raw = process.env.BENCH_ITERATIONS;
  if (raw === undefined || raw.trim() === '') return DEFAULT_ITERATIONS;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new BenchError(`BENCH_ITERATIONS must be a whole number ≥ 1 (got "${raw}")`);
  return n;
}

async function main(): Promise<number> {
  const only = benchOnly();
  const iterations = iterationCount();
  const startedAt = performance.now();
  // File-backed, as `npm start` runs it: the usage ingest is judged against this engine.
  const dataDir = mkdtempSync(join(tmpdir(), 'pricing-bench-'));
  const stripe = await startFakeStripe();
  // Payment calls are limited per client address and project (30 in any 60 s): the bench's
  // clock moves 2 s on each reading, so its sequential checkouts stay inside the limit and
  // measure the usual writes (one conditional UpdateItem per window) rather than 429s.
  let ticks = 0;
  const spacedClock = { now: () => Date.now() + 2000 * ticks++ };
  const stack = await startBenchStack({
    table: TABLE_NAME,
    dataDir,
    // Webhooks go to the bench's own receiver on loopback, as in local runs.
    env: {
      KEY_CACHE_TTL_SECONDS: String(KEY_CACHE_TTL_SECONDS),
      STRIPE_API_BASE: stripe.url,
      WEBHOOK_URLS: 'loopback',
    },
    ports: { clock: () => spacedClock },
  });
  try {
    const { client, server, config } = stack;
    const cacheTtlMs = config.PROJECT_CACHE_TTL_SECONDS * 1000;
    const key = await warmKey(OWNER_ID, server.url);
    const call = apiCaller(server.url, key.key);
    const on = { client, table: TABLE_NAME, serverUrl: server.url, ownerId: OWNER_ID, iterations, cacheTtlMs };
    const consume = () => consumeRows({ ...on, key: key.key() });
    const webhooks = () => webhookRows({ ...on, key: key.key() });
    if (only === 'webhooks') {
      const usage = await usageRows({ ...on, key: key.key(), dynamoPid: stack.dynamo.pid });
      const consumed = await consume();
      const hooks = await webhooks();
      printTable([...usage.rows, ...consumed.rows, ...hooks.rows]);
      for (const note of [...usage.notes, ...consumed.notes, ...hooks.notes]) console.log(note);
      return 0;
    }
    if (only === 'consume') {
      const consumed = await consume();
      printTable(consumed.rows);
      for (const note of consumed.notes) console.log(note);
      return 0;
    }
    const seeded = await seedBenchProject(call, iterations);
    const { project, base, featureIds, planId } = seeded;
    const warm = () =>
      printWarm({
        tableName: TABLE_NAME,
        ownerId: OWNER_ID,
        app: stack.app,
        key: key.key(),
        slug: project.slug,
        shareId: project.shareId,
        serverUrl: server.url,
        options: stack.dynamoOptions,
        iterations,
      });
    if (only === 'warm') {
      await warm();
      return 0;
    }
    if (only === 'scale') {
      if (await printScaleTable(server.url, OWNER_ID)) return 0;
      console.log(`\nFAIL: ${SCALE_FAILURE}.`);
      return 1;
    }

    const session = await call('POST', '/api/payments/checkout', 200, { shareId: project.shareId, planId });
    stripe.complete(session.sessionId);
    const endpoints = benchEndpoints(
      seeded,
      `/api/payments/receipt?session_id=${session.sessionId}&shareId=${project.shareId}`,
    );
    // A customer on the first plan, for the entitlement read (billing.md), and signed webhooks.
    await call('PUT', `${base}/customers/bench-user`, 200, { planId });
    const webhookSecret = `whsec_${randomBytes(16).toString('hex')}`;
    await call('PUT', base, 200, { paymentWebhookSecret: webhookSecret });

    const measure = endpointTimer({ serverUrl: server.url, call, key, iterations });
    const rows: Row[] = [];
    for (const { label, path, body } of endpoints) rows.push(await measure(label, path, body));
    rows.push(...(await baselineRows(client, TABLE_NAME, OWNER_ID, project, iterations)));
    const billing = await billingRows({
      client,
      tableName: TABLE_NAME,
      serverUrl: server.url,
      project,
      webhookSecret,
      iterations,
    });
    rows.push(await measure('GET …/customers/{customerId}/entitlements', `${base}/customers/bench-user/entitlements`));
    rows.push(billing.customerBaseline);
    // Like with like: the read in process and over HTTP beside a bare BatchGetItem of its keys.
    const writeKey = (await createApiKey({ ownerId: OWNER_ID, permission: 'read_write' })).key;
    const bigReads = await entitlementReads({
      ...on,
      key: writeKey,
      projectKey: { ownerId: OWNER_ID, slug: project.slug },
      projectId: project.id,
      customerId: 'bench-user',
      features: featureIds.map((featureId) => ({ featureId, method: 'count' as const })),
    });
    rows.push(...bigReads.rows, billing.webhook);
    const share = await fetch(`${server.url}/api/share/${project.shareId}`, {
      headers: { 'accept-encoding': 'identity' },
    });
    rows.push(...compressionRows(await share.text(), iterations));
    const usage = await usageRows({ ...on, key: writeKey, dynamoPid: stack.dynamo.pid });
    const consumed = await consume();
    const versions = await versionRows({ ...on, key: writeKey, customers: 1_000 });
    const hooks = await webhooks();
    rows.push(...usage.rows, ...consumed.rows, ...versions.rows, ...hooks.rows);

    printTable(rows);
    await warm();
    const scaleOk = await printScaleTable(server.url, OWNER_ID);
    const widget = await widgetSize();
    const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
    console.log(
      `\nwidget.js: ${kb(widget.raw)} minified, ${kb(widget.gzip)} gzip (budget ${kb(WIDGET_GZIP_BUDGET)}), ${kb(widget.brotli)} brotli`,
    );
    console.log(
      `entitlements read (${FEATURES} countable features, ${PLANS} plans): ${bigReads.note}; webhook p50 ${billing.webhook.p50.toFixed(2)} ms`,
    );
    for (const note of [...usage.notes, ...versions.notes, ...consumed.notes, ...hooks.notes]) console.log(note);

    const seconds = ((performance.now() - startedAt) / 1000).toFixed(1);
    const fail = (why: string) => {
      console.log(`\nFAIL: ${why} (${seconds} s).`);
      return 1;
    };
    if (widget.gzip > WIDGET_GZIP_BUDGET) {
      return fail(`widget.js is ${kb(widget.gzip)} gzipped, over its ${kb(WIDGET_GZIP_BUDGET)} budget`);
    }
    const measured = rows.slice(0, endpoints.length);
    // Every read must query DynamoDB; a zero means the counter is not wired and proves nothing.
    const uncounted = measured.filter((r) => r.requestsMin < 1);
    if (uncounted.length > 0) {
      return fail(
        `no DynamoDB request was counted for ${uncounted.map((r) => r.label).join(', ')}: the request counter is not wired up`,
      );
    }
    const allowed = (label: string) => endpoints.find((e) => e.label === label)?.allowed ?? 1;
    const over = measured.filter((r) => r.requestsMax > allowed(r.label));
    if (over.length > 0) {
      return fail(
        `${over.map((r) => `${r.label} (${range(r.requestsMin, r.requestsMax)})`).join(', ')} made more DynamoDB requests per call than allowed on a warm cache (reads 1, plan features 2, payment calls ${PAYMENT_REQUESTS})`,
      );
    }
    if (!scaleOk) return fail(SCALE_FAILURE);
    console.log(
      `\nOK: every endpoint measured made exactly 1 DynamoDB request per call on a warm cache (${seconds} s).`,
    );
    return 0;
  } finally {
    await stack.stop();
    await stripe.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof BenchError ? error.message : error);
    process.exit(1);
  },
);
