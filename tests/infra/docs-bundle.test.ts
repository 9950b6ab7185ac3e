import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { gunzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { etagOf } from '#http/etag.ts';
import { functionBuildOptions } from '../../infra/bundling.ts';
import { repoRoot } from '../fixtures/cdk.ts';
import { httpEvent } from '../fixtures/events.ts';

/**
 * The docs function as deployed: bundled with the deployed esbuild options and called as a
 * Lambda in a fresh Node, it serves docs/openapi.json (the bundle carries it gzipped,
 * functions/docs/openapi-gzip.ts), plain and gzipped, with the ETag of the compact text it
 * always had, inside the default budget.
 */

const committed = JSON.parse(await readFile(join(repoRoot, 'docs', 'openapi.json'), 'utf8'));
const event = (headers: Record<string, string>) => httpEvent('GET', '/openapi.json', { headers });

let dir: string;
let outfile: string;
let answers: { statusCode: number; headers: Record<string, string>; body: string; isBase64Encoded?: boolean }[];

beforeAll(async () => {
  await mkdir(join(repoRoot, 'cdk.out'), { recursive: true });
  dir = await mkdtemp(join(repoRoot, 'cdk.out', 'docs-bundle-test-'));
  outfile = join(dir, 'index.mjs');
  await build({
    ...functionBuildOptions(join(repoRoot, 'functions', 'docs', 'handler.ts'), dir, false),
    logLevel: 'error',
  });
  const events = [event({}), event({ 'accept-encoding': 'gzip, br' })];
  const script = `const { handler } = await import(${JSON.stringify(pathToFileURL(outfile).href)});
    const answers = [];
    for (const event of ${JSON.stringify(events)}) answers.push(await handler(event, { awsRequestId: 'docs-bundle-test' }));
    console.log(JSON.stringify(answers));`;
  const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], {
    env: {
      PATH: process.env.PATH ?? '',
      TABLE_NAME: 'docs-bundle-test',
      AWS_REGION: 'us-east-1',
      LOG_LEVEL: 'silent',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    },
    maxBuffer: 16 * 1024 * 1024,
  });
  answers = JSON.parse(stdout);
}, 60_000);

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('the deployed docs function', () => {
  test('serves docs/openapi.json as it always did: the compact text, its ETag', () => {
    const [plain] = answers;
    expect(plain?.statusCode).toBe(200);
    expect(plain?.headers['content-encoding']).toBeUndefined();
    expect(plain?.body).toBe(JSON.stringify(committed));
    expect(plain?.headers.etag).toBe(etagOf(JSON.stringify(committed)));
  });

  test('serves the same document gzipped when asked', () => {
    const [, zipped] = answers;
    expect(zipped?.statusCode).toBe(200);
    expect(zipped?.headers['content-encoding']).toBe('gzip');
    expect(zipped?.isBase64Encoded).toBe(true);
    expect(JSON.parse(gunzipSync(Buffer.from(zipped?.body ?? '', 'base64')).toString('utf8'))).toEqual(committed);
  });

  test('carries the document gzipped', async () => {
    const bundle = await readFile(outfile, 'utf8');
    // The document's introduction is nowhere else: in the bundle it would be plain text.
    expect(committed.info.description.length).toBeGreaterThan(200);
    expect(bundle.includes(committed.info.description.slice(0, 60))).toBe(false);
  });
});
