import { build } from 'esbuild';
import { functionBuildOptions } from './bundling.ts';

/**
 * `tsx infra/bundle-function.ts <entry> <outdir> <bundleAwsSdk>`: one function's package
 * (`index.mjs` and its chunks), built with the esbuild API (which takes plugins; the CLI that
 * NodejsFunction runs does not). CDK's local bundling (infra/bundling.ts `functionCode`) runs
 * it synchronously during synth.
 */
const [entry, outdir, bundleAwsSdk] = process.argv.slice(2);
if (!entry || !outdir) throw new Error('usage: bundle-function.ts <entry> <outdir> <bundleAwsSdk>');
await build({ ...functionBuildOptions(entry, outdir, bundleAwsSdk === 'true'), logLevel: 'warning' });
