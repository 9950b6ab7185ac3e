import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { App, type CfnResource, Stack } from 'aws-cdk-lib';
import { budgetKbOf } from '../infra/bundling.ts';
import { buildPricingApp } from '../infra/pricing-app.ts';
import type { Group } from '../shared/routes.ts';

/**
 * `npm run size`: each function's bundle exactly as `cdk synth` builds it (what is zipped
 * and deployed), against its budget (infra/bundling.ts). Fails when a bundle is over budget
 * or its directory ships anything besides index.mjs and its spec's assets (a source map).
 * Import times: `npm run cold-start`.
 */

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const cdkContext = JSON.parse(readFileSync(join(ROOT, 'cdk.json'), 'utf8')).context as Record<string, unknown>;
const kb = (bytes: number) => `${(bytes / 1024).toFixed(0)} KB`;
const budgetOf = (group: Group) => budgetKbOf(group) * 1024;

function main(): number {
  mkdirSync(join(ROOT, 'cdk.out'), { recursive: true });
  const outdir = mkdtempSync(join(ROOT, 'cdk.out', 'size-'));
  try {
    const app = new App({ context: cdkContext, outdir });
    const { api } = buildPricingApp(app, { stage: 'size', projectRoot: ROOT });
    app.synth();
    const template = JSON.parse(readFileSync(join(outdir, `${api.stackName}.template.json`), 'utf8'));
    const failures: string[] = [];
    const rows = (Object.entries(api.functions) as [Group, (typeof api.functions)[Group]][]).map(([group, service]) => {
      const logicalId = Stack.of(service).getLogicalId(service.fn.node.defaultChild as CfnResource);
      const key: string = template.Resources[logicalId].Properties.Code.S3Key;
      const dir = join(outdir, `asset.${key.replace(/\.zip$/, '')}`);
      const file = join(dir, 'index.mjs');
      const bytes = statSync(file).size;
      const files = readdirSync(dir);
      const zipped = files.reduce((sum, name) => sum + gzipSync(readFileSync(join(dir, name))).length, 0);
      if (bytes > budgetOf(group)) failures.push(`${group} is ${kb(bytes)}, over its ${kb(budgetOf(group))} budget`);
      const maps = files.filter((name) => name.endsWith('.map'));
      if (maps.length > 0) failures.push(`${group} ships ${maps.join(', ')}`);
      return [group, kb(bytes), kb(budgetOf(group)), kb(zipped), files.sort().join(' ')];
    });
    const header = ['function', 'index.mjs', 'budget', 'zip (gzip)', 'files'];
    const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] as string).length)));
    const line = (cells: string[]) =>
      cells.map((c, i) => (i === 0 || i === 4 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join(' | ');
    console.log(line(header));
    console.log(widths.map((w) => '-'.repeat(w)).join('-|-'));
    for (const row of rows) console.log(line(row));
    if (failures.length > 0) {
      console.log(`\nFAIL: ${failures.join('; ')}.`);
      return 1;
    }
    console.log('\nOK: every function within its budget, no source map shipped.');
    return 0;
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}

process.exit(main());
