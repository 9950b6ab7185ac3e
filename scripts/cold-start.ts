import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build, type Metafile } from 'esbuild';
import { functionBuildOptions, initBudgetOf } from '../infra/bundling.ts';
import { groupNames } from '../shared/function-specs.ts';
import { printColumns } from './bench-harness.ts';

/**
 * `npm run cold-start`: how long a fresh Node takes to import each deployed function's bundle
 * (the init part of a Lambda cold start that is ours), as a multiple of a bundle holding only
 * the DynamoDB client and a DocumentClient (dev/cold-start-baseline.ts), against each function's
 * init target and ceiling (infra/bundling.ts `initBudget`; over a ceiling fails). Every package
 * is built as deployed (`functionBuildOptions`, the SDK bundled) and its `index.mjs` imported as
 * Lambda imports it: the chunks it imports load with it, the lazy ones (loaded by `import()` at
 * first use) do not. `COLD_START_RUNTIME_SDK=1` adds the `-c bundleAwsSdk=false` variant, for
 * information.
 *
 * Built for a loaded, shared machine: each round imports every bundle once in a fresh process,
 * in a rotating order, and a function's ratio in a round is its CPU over the baseline's in that
 * same round, so load that comes and goes hits both sides of a ratio alike; the verdict is the
 * median of those ratios, CPU (user + system) rather than wall time, which other processes
 * inflate far more. A function over its ceiling gets as many rounds again before it fails, so
 * one burst of load cannot fail the check alone.
 */

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const RUNS = Number(process.env.COLD_START_RUNS ?? 15);
const BASELINE = 'baseline';

const env = {
  PATH: process.env.PATH ?? '',
  TABLE_NAME: 'cold-start',
  AWS_REGION: 'us-east-1',
  PAYMENT_KMS_KEY_ID: 'arn:aws:kms:us-east-1:111111111111:key/cold-start',
  // The projects function hands deletes to the sweep queue: its init checks the queue is set.
  SWEEP_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/111111111111/cold-start',
  // webhooksOut hands retries to the delivery queue: its init checks the queue is set.
  WEBHOOK_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/111111111111/cold-start-webhooks',
  // The customers function signs customer tokens: its init reads the keys.
  CUSTOMER_TOKEN_KEYS: `cold-start:${'s'.repeat(32)}`,
  LOG_LEVEL: 'silent',
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
};

interface Bundle {
  name: string;
  variant: 'SDK bundled' | 'runtime SDK';
  file: string;
  /** Bytes Node reads at the import (`index.mjs` and the chunks it imports) and after it. */
  initBytes: number;
  lazyBytes: number;
  cpu: number[];
  wall: number[];
  /** Per round: this bundle's CPU over the baseline's in the same round. */
  ratios: number[];
}

async function buildBundles(outdir: string, bundleAwsSdk: boolean): Promise<Bundle[]> {
  const entries = [
    { name: BASELINE, entry: join(ROOT, 'dev', 'cold-start-baseline.ts') },
    ...[...groupNames, 'sweeper', 'webhooksOut'].map((name) => ({
      name,
      entry: join(ROOT, 'functions', name, 'handler.ts'),
    })),
  ];
  const variant = bundleAwsSdk ? 'SDK bundled' : 'runtime SDK';
  return Promise.all(
    entries.map(async ({ name, entry }) => {
      const dir = join(outdir, variant.replace(' ', '-'), name);
      const { metafile } = await build({
        ...functionBuildOptions(entry, dir, bundleAwsSdk),
        metafile: true,
        logLevel: 'error',
      });
      const file = join(dir, 'index.mjs');
      const initBytes = bytesAtImport(metafile, relative(process.cwd(), file));
      const lazyBytes = Object.values(metafile.outputs).reduce((sum, o) => sum + o.bytes, 0) - initBytes;
      return { name, variant, file, initBytes, lazyBytes, cpu: [], wall: [], ratios: [] } satisfies Bundle;
    }),
  );
}

/** The bytes of `entry` and of every output it imports statically, transitively. */
function bytesAtImport(metafile: Metafile, entry: string): number {
  const seen = new Set<string>();
  const visit = (path: string) => {
    const output = metafile.outputs[path];
    if (!output || seen.has(path)) return;
    seen.add(path);
    for (const imported of output.imports) if (imported.kind === 'import-statement') visit(imported.path);
  };
  visit(entry);
  if (seen.size === 0) throw new Error(`${entry} is not among the outputs`);
  return [...seen].reduce((sum, path) => sum + (metafile.outputs[path]?.bytes ?? 0), 0);
}

/** Wall and CPU (user + system) milliseconds of one import in a fresh process. */
function importMs(file: string): { wall: number; cpu: number } {
  const script = `const c = process.cpuUsage(); const t = performance.now(); await import(${JSON.stringify(pathToFileURL(file).href)}); const u = process.cpuUsage(c); console.log(JSON.stringify({ wall: performance.now() - t, cpu: (u.user + u.system) / 1000 }));`;
  return JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { env, encoding: 'utf8' }));
}

/** `rounds` rounds over `bundles` (each variant's baseline among them), each in a rotating order. */
function measure(bundles: Bundle[], rounds: number) {
  for (let round = 0; round < rounds; round++) {
    const thisRound = new Map<Bundle, number>();
    for (let i = 0; i < bundles.length; i++) {
      const bundle = bundles[(i + round) % bundles.length] as Bundle;
      const { cpu, wall } = importMs(bundle.file);
      bundle.cpu.push(cpu);
      bundle.wall.push(wall);
      thisRound.set(bundle, cpu);
    }
    for (const bundle of bundles) {
      const baseline = bundles.find((b) => b.variant === bundle.variant && b.name === BASELINE) as Bundle;
      bundle.ratios.push((thisRound.get(bundle) as number) / (thisRound.get(baseline) as number));
    }
  }
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
};

const ratioOf = (bundle: Bundle) => median(bundle.ratios);

function print(bundles: Bundle[]) {
  const header = ['bundle', 'variant', 'init size', 'lazy', 'wall p50', 'CPU p50', 'CPU ratio', 'target', 'ceiling'];
  const cells = bundles.map((b) => [
    b.name,
    b.variant,
    `${(b.initBytes / 1024).toFixed(0)} KB`,
    `${(b.lazyBytes / 1024).toFixed(0)} KB`,
    `${median(b.wall).toFixed(1)} ms`,
    `${median(b.cpu).toFixed(1)} ms`,
    `${ratioOf(b).toFixed(2)}×`,
    ...(b.name === BASELINE || b.variant !== 'SDK bundled'
      ? ['', '']
      : [`${initBudgetOf(b.name, 'target').toFixed(1)}×`, `${initBudgetOf(b.name, 'ceiling').toFixed(1)}×`]),
  ]);
  printColumns(header, cells, 2);
}

async function main(): Promise<number> {
  mkdirSync(join(ROOT, 'cdk.out'), { recursive: true });
  // Inside the repository, so the runtime variant's external @aws-sdk/* resolves from node_modules.
  const outdir = mkdtempSync(join(ROOT, 'cdk.out', 'cold-start-'));
  try {
    const deployed = await buildBundles(outdir, true);
    const runtime = process.env.COLD_START_RUNTIME_SDK === '1' ? await buildBundles(outdir, false) : [];
    const bundles = [...deployed, ...runtime];
    measure(bundles, RUNS);
    const baseline = deployed.find((b) => b.name === BASELINE) as Bundle;
    const overBudget = (kind: 'target' | 'ceiling' = 'ceiling') =>
      deployed.filter((b) => b !== baseline && ratioOf(b) > initBudgetOf(b.name, kind));
    let over = overBudget();
    if (over.length > 0) {
      console.log(`Over the ceiling after ${RUNS} rounds: ${over.map((b) => b.name).join(', ')}; measuring again.`);
      measure([baseline, ...over], RUNS);
      over = overBudget();
    }
    print(bundles);
    console.log(
      `\nCPU ratio: the median over rounds of a function's import CPU over the baseline's in the same round (${RUNS} rounds, twice for any function over its ceiling after the first ${RUNS}; fresh Node processes, interleaved).`,
    );
    const missed = overBudget('target');
    if (missed.length > 0) {
      console.log(
        `Over the target: ${missed.map((b) => `${b.name} ${ratioOf(b).toFixed(2)}× (target ${initBudgetOf(b.name, 'target')}×)`).join(', ')}.`,
      );
    }
    if (over.length > 0) {
      console.log(
        `FAIL: ${over.map((b) => `${b.name} ${ratioOf(b).toFixed(2)}× (ceiling ${initBudgetOf(b.name, 'ceiling')}×)`).join(', ')}.`,
      );
      return 1;
    }
    console.log('OK: every deployed function imports under its ceiling.');
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
