import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { esbuildOptions } from '../infra/bundling.ts';
import { groupNames } from '../shared/function-specs.ts';

/**
 * `npm run cold-start`: how long a fresh Node takes to import each function's bundle (the
 * init part of a Lambda cold start that is ours), against a bundle holding only the DynamoDB
 * client and a DocumentClient (dev/cold-start-baseline.ts). Every bundle is built with the
 * deployed esbuild options (infra/bundling.ts), once with the SDK left to the runtime (as
 * deployed; it loads from node_modules here, as from the runtime's there) and once bundled.
 * RUNS rounds; each round starts one fresh process per bundle, in a rotating order, so load on
 * a shared machine spreads evenly. Prints wall and CPU medians and their ratios to the baseline;
 * exits 1 when a deployed function's CPU ratio is over the goal (issue 14: 1.5).
 */

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const RUNS = Number(process.env.COLD_START_RUNS ?? 20);
const GOAL = 1.5;
const BASELINE = 'baseline (client + DocumentClient)';

const env = {
  PATH: process.env.PATH ?? '',
  TABLE_NAME: 'cold-start',
  AWS_REGION: 'us-east-1',
  PAYMENT_KMS_KEY_ID: 'arn:aws:kms:us-east-1:111111111111:key/cold-start',
  // The projects function hands deletes to the sweep queue: its init checks the queue is set.
  SWEEP_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/111111111111/cold-start',
  LOG_LEVEL: 'silent',
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
};

interface Bundle {
  name: string;
  variant: 'runtime SDK' | 'SDK bundled';
  file: string;
  times: { wall: number; cpu: number }[];
}

async function buildBundles(outdir: string, bundleAwsSdk: boolean): Promise<Bundle[]> {
  const entries = [
    { name: BASELINE, entry: join(ROOT, 'dev', 'cold-start-baseline.ts') },
    ...groupNames.map((group) => ({ name: group, entry: join(ROOT, 'functions', group, 'handler.ts') })),
  ];
  const variant = bundleAwsSdk ? 'SDK bundled' : 'runtime SDK';
  return Promise.all(
    entries.map(async ({ name, entry }) => {
      const file = join(outdir, variant.replace(' ', '-'), name.split(' ')[0] as string, 'index.mjs');
      await build({ ...esbuildOptions(bundleAwsSdk), entryPoints: [entry], outfile: file, logLevel: 'error' });
      return { name, variant, file, times: [] } satisfies Bundle;
    }),
  );
}

/** Wall and CPU (user + system) milliseconds of one import in a fresh process. */
function importMs(file: string): { wall: number; cpu: number } {
  const script = `const c = process.cpuUsage(); const t = performance.now(); await import(${JSON.stringify(pathToFileURL(file).href)}); const u = process.cpuUsage(c); console.log(JSON.stringify({ wall: performance.now() - t, cpu: (u.user + u.system) / 1000 }));`;
  return JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { env, encoding: 'utf8' }));
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
};

async function main(): Promise<number> {
  mkdirSync(join(ROOT, 'cdk.out'), { recursive: true });
  // Inside the repository, so an external @aws-sdk/* resolves from node_modules.
  const outdir = mkdtempSync(join(ROOT, 'cdk.out', 'cold-start-'));
  try {
    const bundles = [...(await buildBundles(outdir, false)), ...(await buildBundles(outdir, true))];
    for (let round = 0; round < RUNS; round++) {
      for (let i = 0; i < bundles.length; i++) {
        const bundle = bundles[(i + round) % bundles.length] as Bundle;
        bundle.times.push(importMs(bundle.file));
      }
    }
    const rows = bundles.map((bundle) => {
      const baseline = bundles.find((b) => b.variant === bundle.variant && b.name === BASELINE) as Bundle;
      const wall = median(bundle.times.map((t) => t.wall));
      const cpu = median(bundle.times.map((t) => t.cpu));
      return {
        ...bundle,
        kb: statSync(bundle.file).size / 1024,
        wall,
        cpu,
        wallRatio: wall / median(baseline.times.map((t) => t.wall)),
        ratio: cpu / median(baseline.times.map((t) => t.cpu)),
      };
    });
    const header = ['bundle', 'variant', 'size', 'wall p50', 'ratio', 'CPU p50', 'ratio'];
    const cells = rows.map((r) => [
      r.name,
      r.variant,
      `${r.kb.toFixed(0)} KB`,
      `${r.wall.toFixed(1)} ms`,
      `${r.wallRatio.toFixed(2)}×`,
      `${r.cpu.toFixed(1)} ms`,
      `${r.ratio.toFixed(2)}×`,
    ]);
    const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => (c[i] as string).length)));
    const line = (c: string[]) =>
      c.map((v, i) => (i < 2 ? v.padEnd(widths[i] ?? 0) : v.padStart(widths[i] ?? 0))).join(' | ');
    console.log(line(header));
    console.log(widths.map((w) => '-'.repeat(w)).join('-|-'));
    for (const c of cells) console.log(line(c));
    const over = rows.filter((r) => r.variant === 'runtime SDK' && r.ratio > GOAL);
    console.log(
      `\nMedian of ${RUNS} fresh Node processes per bundle, interleaved. Deployed: runtime SDK. The goal is judged on CPU time, which load from other processes on a shared machine inflates far less than wall time.`,
    );
    if (over.length > 0) {
      console.log(
        `FAIL: ${over.map((r) => `${r.name} ${r.ratio.toFixed(2)}×`).join(', ')} over ${GOAL}× the baseline.`,
      );
      return 1;
    }
    console.log(`OK: every deployed function imports within ${GOAL}× the baseline.`);
    return 0;
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
