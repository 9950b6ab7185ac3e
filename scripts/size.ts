import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { App, type CfnResource, Stack } from 'aws-cdk-lib';
import { buildPricingApp } from '../infra/pricing-app.ts';
import type { Group } from '../shared/routes.ts';

/**
 * `npm run size`: each function's bundle exactly as `cdk synth` builds it, twice: with
 * @aws-sdk/* bundled (what we deploy) and left to the Lambda runtime. Prints the size, the
 * gzipped size (what Lambda downloads, roughly) and the time a fresh Node process takes to
 * import the bundle (a local stand-in for the init part of a cold start; the external
 * variant loads the SDK from node_modules, as the runtime loads its own copy).
 */

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const IMPORTS = 5;
const cdkContext = JSON.parse(readFileSync(join(ROOT, 'cdk.json'), 'utf8')).context as Record<string, unknown>;

interface Measure {
  bytes: number;
  gzip: number;
  importMs: number;
}

function importMs(file: string): number {
  const script = `const t = performance.now(); await import(${JSON.stringify(pathToFileURL(file).href)}); console.log(performance.now() - t);`;
  const env = {
    ...process.env,
    TABLE_NAME: 'size',
    AWS_REGION: 'us-east-1',
    PAYMENT_KMS_KEY_ID: 'arn:aws:kms:us-east-1:111111111111:key/size',
    LOG_LEVEL: 'silent',
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  };
  const runs = Array.from({ length: IMPORTS }, () =>
    Number(execFileSync(process.execPath, ['--input-type=module', '-e', script], { env, encoding: 'utf8' }).trim()),
  ).sort((a, b) => a - b);
  return runs[Math.floor(runs.length / 2)] ?? Number.NaN;
}

function measureBundles(bundleAwsSdk: boolean): Map<Group, Measure> {
  // Inside the repository, so the external variant finds @aws-sdk/* in node_modules.
  const outdir = mkdtempSync(join(ROOT, 'cdk.out', `size-${bundleAwsSdk ? 'bundled' : 'external'}-`));
  try {
    const app = new App({ context: cdkContext, outdir });
    const { api } = buildPricingApp(app, { stage: 'size', projectRoot: ROOT, bundleAwsSdk });
    app.synth();
    const template = JSON.parse(readFileSync(join(outdir, `${api.stackName}.template.json`), 'utf8'));
    const result = new Map<Group, Measure>();
    for (const [group, service] of Object.entries(api.functions) as [Group, (typeof api.functions)[Group]][]) {
      const logicalId = Stack.of(service).getLogicalId(service.fn.node.defaultChild as CfnResource);
      const key: string = template.Resources[logicalId].Properties.Code.S3Key;
      const file = join(outdir, `asset.${key.replace(/\.zip$/, '')}`, 'index.mjs');
      const code = readFileSync(file);
      result.set(group, { bytes: statSync(file).size, gzip: gzipSync(code).length, importMs: importMs(file) });
    }
    return result;
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(0)} KB`;

function main(): void {
  execFileSync('mkdir', ['-p', join(ROOT, 'cdk.out')]);
  const bundled = measureBundles(true);
  const external = measureBundles(false);
  const rows = [...bundled.keys()].map((group) => {
    const b = bundled.get(group) as Measure;
    const e = external.get(group) as Measure;
    return [
      group,
      kb(b.bytes),
      kb(b.gzip),
      `${b.importMs.toFixed(0)} ms`,
      kb(e.bytes),
      kb(e.gzip),
      `${e.importMs.toFixed(0)} ms`,
    ];
  });
  const header = ['function', 'bundled', 'gzip', 'import', 'sdk external', 'gzip', 'import'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] as string).length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0)));
  console.log(line(header).join(' | '));
  console.log(widths.map((w) => '-'.repeat(w)).join('-|-'));
  for (const row of rows) console.log(line(row).join(' | '));
  console.log(
    `\nimport: median of ${IMPORTS} fresh Node processes importing the bundle (source maps not enabled). Deployed: bundled.`,
  );
}

main();
