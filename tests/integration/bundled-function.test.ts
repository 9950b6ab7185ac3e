import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { functionBuildOptions } from '../../infra/bundling.ts';
import { type ApiClient, newOwner, useLocalServer } from '../fixtures/api.ts';
import { repoRoot } from '../fixtures/cdk.ts';
import { httpEvent } from '../fixtures/events.ts';
import { makeProject } from '../fixtures/factories.ts';

/**
 * A function as it is deployed (infra/bundling.ts: the SDK bundled, ElectroDB's own require of
 * the DocumentClient commands stubbed out, zod without its JSON Schema conversion), imported
 * by a fresh Node and invoked as API Gateway invokes it, against DynamoDB Local: every kind of
 * request ElectroDB sends for the features group (a transaction, a query, an update, a delete)
 * goes through the commands the Service hands it. The in-process server then reads what the
 * bundle wrote.
 */

const server = useLocalServer({ webhooksOut: false });
let api: ApiClient;
let writeKey: string;
let dir: string;
let bundle: string;

beforeAll(async () => {
  const owner = await newOwner('bundled-function');
  writeKey = owner.writeKey;
  api = server.client(owner.writeKey);
  await mkdir(join(repoRoot, 'cdk.out'), { recursive: true });
  dir = await mkdtemp(join(repoRoot, 'cdk.out', 'bundled-function-test-'));
  await build({
    ...functionBuildOptions(join(repoRoot, 'functions', 'features', 'handler.ts'), dir, true),
    logLevel: 'error',
  });
  bundle = join(dir, 'index.mjs');
}, 60_000);

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** Invokes the bundled handler once per event, in order, in one fresh Node; its answers. */
async function invokeBundle(events: unknown[]): Promise<{ statusCode: number; body: string }[]> {
  const script = `
    const { handler } = await import(${JSON.stringify(bundle)});
    const context = { getRemainingTimeInMillis: () => 29000, awsRequestId: 'bundled', functionName: 'features' };
    const answers = [];
    for (const event of JSON.parse(process.env.EVENTS)) answers.push(await handler(event, context));
    console.log(JSON.stringify(answers));
  `;
  const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], {
    env: { ...process.env, EVENTS: JSON.stringify(events), AWS_REGION: 'us-east-1' },
  });
  return JSON.parse(stdout.trim().split('\n').at(-1) as string);
}

const route = '/api/v1/projects/{slug}/features';

test('the bundled features function creates, lists, updates and deletes through ElectroDB', async () => {
  const { slug } = await makeProject(api);
  const headers = { authorization: `Bearer ${writeKey}`, 'content-type': 'application/json' };
  const path = `/api/v1/projects/${slug}/features`;
  const [created] = await invokeBundle([
    httpEvent('POST', route, {
      path,
      pathParameters: { slug },
      headers,
      body: JSON.stringify({ name: 'Seats', basePrice: 3 }),
    }),
  ]);
  expect(created?.statusCode, created?.body).toBe(201);
  const { id } = JSON.parse(created?.body as string);

  const one = `${route}/{featureId}`;
  const [updated, listed, deleted, after] = await invokeBundle([
    httpEvent('PUT', one, {
      path: `${path}/${id}`,
      pathParameters: { slug, featureId: String(id) },
      headers,
      body: JSON.stringify({ name: 'Team seats' }),
    }),
    httpEvent('GET', route, { path, pathParameters: { slug }, headers }),
    httpEvent('DELETE', one, { path: `${path}/${id}`, pathParameters: { slug, featureId: String(id) }, headers }),
    httpEvent('GET', route, { path, pathParameters: { slug }, headers }),
  ]);
  expect(updated?.statusCode, updated?.body).toBe(200);
  expect(JSON.parse(updated?.body as string)).toMatchObject({ id, name: 'Team seats', basePrice: 3 });
  expect(listed?.statusCode).toBe(200);
  expect(JSON.parse(listed?.body as string)).toMatchObject({ features: [{ id, name: 'Team seats' }] });
  expect(deleted?.statusCode, deleted?.body).toBe(200);
  expect(JSON.parse(after?.body as string)).toEqual({ features: [] });

  // What the bundle wrote is what the code unbundled reads.
  const features = await api.get(path);
  expect(features.body).toEqual({ features: [] });
}, 60_000);
