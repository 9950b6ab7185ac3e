import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { App } from 'aws-cdk-lib';
import { buildPricingApp } from './pricing-app.ts';
import { StageError } from './stages.ts';

/**
 * `npx cdk synth|deploy -c stage=<stage>`: the stacks of one stage. Bundling uses the local
 * esbuild (no Docker), so synth works offline.
 */
const app = new App();
try {
  buildPricingApp(app, {
    stage: app.node.tryGetContext('stage'),
    projectRoot: resolve(dirname(fileURLToPath(import.meta.url)), '..'),
    // Context from `-c` is a string; from cdk.json it may be a boolean.
    bundleAwsSdk: String(app.node.tryGetContext('bundleAwsSdk') ?? true) !== 'false',
  });
} catch (error) {
  if (!(error instanceof StageError)) throw error;
  console.error(error.message);
  process.exit(1);
}
app.synth();
