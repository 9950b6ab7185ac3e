import { fileURLToPath } from 'node:url';
import { type BundlingOptions, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';

/**
 * How every function is bundled, in one place: CDK's NodejsFunction takes `functionBundling`,
 * and `npm run cold-start` builds its bundles with `esbuildOptions`, the same esbuild flags,
 * so what it times is what is deployed. Budgets and the reasons for each choice:
 * docs/decisions.md, "Bundles and cold starts".
 */

/**
 * Minified KB per function: `npm run size` fails over these. The two functions that carry
 * Stripe's SDK (payments; webhooks, which verifies signatures with it) get the payment budget;
 * projects carries css-tree's parser (49 KB), which checks customCSS when it is written: 414 KB
 * with the warm-read mapper (shared/db/items.ts) and the raw Query, so 16 KB more than the rest
 * (issue 14 wants 400; docs/decisions.md, "Bundles and cold starts", says where it could go).
 */
export const bundleBudgetKb = { default: 400, payments: 650, webhooks: 650, projects: 416 } as const;

/** A function's budget in KB. */
export const budgetKbOf = (name: string): number =>
  name in bundleBudgetKb ? bundleBudgetKb[name as keyof typeof bundleBudgetKb] : bundleBudgetKb.default;

/** CommonJS dependencies bundled into ESM still call require() for Node's built-ins. */
const banner = "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);";
const mainFields = ['module', 'main'];
const target = 'node22';
/** ElectroDB's model check, answered without the validator (infra/jsonschema-stub.ts). */
const jsonschemaStub = fileURLToPath(new URL('./jsonschema-stub.ts', import.meta.url));

/**
 * `@aws-sdk/*` comes from the Lambda runtime (Node 22 ships SDK v3) unless `bundleAwsSdk`:
 * bundled, the SDK alone is ~380 KB per function, which no budget above leaves room for.
 * No source map: it doubled each zip and `--enable-source-maps` made Node read and parse it
 * at every cold start; a stack trace's index.mjs line:column maps back with a map built from
 * the same commit (the build is deterministic).
 */
export function functionBundling(bundleAwsSdk: boolean): BundlingOptions {
  return {
    format: OutputFormat.ESM,
    target,
    minify: true,
    sourceMap: false,
    mainFields,
    externalModules: bundleAwsSdk ? [] : ['@aws-sdk/*'],
    banner,
    esbuildArgs: { '--alias:jsonschema': jsonschemaStub },
  };
}

/** The esbuild options `functionBundling` stands for, for scripts that build with esbuild's API. */
export function esbuildOptions(bundleAwsSdk: boolean) {
  return {
    bundle: true,
    platform: 'node',
    format: 'esm',
    target,
    minify: true,
    sourcemap: false,
    mainFields,
    external: bundleAwsSdk ? [] : ['@aws-sdk/*'],
    banner: { js: banner },
    alias: { jsonschema: jsonschemaStub },
  } as const;
}
