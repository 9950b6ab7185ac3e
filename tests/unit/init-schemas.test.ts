import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { repoRoot } from '../fixtures/cdk.ts';

/**
 * No function builds a zod schema at init: every schema is built at its first use
 * (`lazySchema`), so a cold start pays neither zod's warm-up nor any schema's construction,
 * and a request builds only what it uses (docs/decisions.md, "Bundles and cold starts"). A
 * fresh Node imports every function's entry with zod's construction hook counting, as Lambda
 * imports them at init (the environment a stage gives them, so their composition runs).
 */

const entries = readdirSync(join(repoRoot, 'functions'), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => join(repoRoot, 'functions', entry.name, 'handler.ts'));

test('importing every function builds no zod schema', () => {
  const script = `
    const built = [];
    globalThis.__zod_globalConfig = { postProcessor: () => built.push(new Error().stack.split('\\n').slice(2, 12).join('\\n')) };
    const counts = {};
    for (const entry of ${JSON.stringify(entries)}) {
      const before = built.length;
      await import(entry);
      counts[entry] = built.length - before;
    }
    console.log(JSON.stringify({ counts, first: built[0] ?? null }));
  `;
  const output = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: repoRoot,
    encoding: 'utf8',
    env: {
      PATH: process.env.PATH ?? '',
      TABLE_NAME: 'init-schemas',
      AWS_REGION: 'us-east-1',
      PAYMENT_KMS_KEY_ID: 'arn:aws:kms:us-east-1:111111111111:key/init-schemas',
      SWEEP_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/111111111111/init-schemas',
      WEBHOOK_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/111111111111/init-schemas-webhooks',
      CUSTOMER_TOKEN_KEYS: `init-schemas:${'s'.repeat(32)}`,
      LOG_LEVEL: 'silent',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    },
  });
  const { counts, first } = JSON.parse(output.trim().split('\n').at(-1) as string);
  expect(Object.keys(counts)).toHaveLength(entries.length);
  expect({ counts, first }).toEqual({ counts: Object.fromEntries(entries.map((entry) => [entry, 0])), first: null });
}, 60_000);
