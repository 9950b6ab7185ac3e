import { build } from 'esbuild';
import { esbuildOptions } from './bundling.ts';

/**
 * `tsx infra/bundle-function.ts <entry> <outfile> <bundleAwsSdk>`: one function's bundle, built
 * with the esbuild API (which takes plugins; the CLI that NodejsFunction runs does not). CDK's
 * local bundling (infra/bundling.ts `functionCode`) runs it synchronously during synth.
 */
const [entry, outfile, bundleAwsSdk] = process.argv.slice(2);
if (!entry || !outfile) throw new Error('usage: bundle-function.ts <entry> <outfile> <bundleAwsSdk>');
await build({ ...esbuildOptions(bundleAwsSdk === 'true'), entryPoints: [entry], outfile, logLevel: 'warning' });
