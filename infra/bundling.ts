import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { AssetHashType, DockerImage, type ILocalBundling } from 'aws-cdk-lib';
import { Code } from 'aws-cdk-lib/aws-lambda';
import type { Plugin } from 'esbuild';

/**
 * How every function is bundled, in one place: the CDK stacks take `functionCode`, which runs
 * esbuild's API with `esbuildOptions` during synth, and `npm run cold-start` and the infra
 * tests build with the same `esbuildOptions`, so what they time and check is what is deployed.
 * Budgets and the reasons for each choice: docs/decisions.md, "Bundles and cold starts".
 */

/**
 * Minified KB per function: `npm run size` fails over these. The two functions that carry
 * Stripe's SDK (payments; webhooks, which verifies signatures with it) get the payment budget.
 */
export const bundleBudgetKb = { default: 400, payments: 650, webhooks: 650 } as const;

/** A function's budget in KB. */
export const budgetKbOf = (name: string): number =>
  name in bundleBudgetKb ? bundleBudgetKb[name as keyof typeof bundleBudgetKb] : bundleBudgetKb.default;

/** CommonJS dependencies bundled into ESM still call require() for Node's built-ins. */
const banner = "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);";
const mainFields = ['module', 'main'];
const target = 'node22';
/** ElectroDB's model check, answered without the validator (infra/jsonschema-stub.ts). */
const jsonschemaStub = fileURLToPath(new URL('./jsonschema-stub.ts', import.meta.url));
const zodJsonSchemaStub = fileURLToPath(new URL('./zod-json-schema-stub.ts', import.meta.url));

/**
 * zod's classic schemas import its JSON Schema conversion (17.5 KB minified) for
 * `toJSONSchema()`, which no function calls; infra/zod-json-schema-stub.ts stands in for it.
 * A relative import inside a package is out of reach of esbuild's `alias`, hence a plugin (and
 * esbuild's API rather than the CLI that NodejsFunction runs).
 */
export const zodWithoutJsonSchema: Plugin = {
  name: 'zod-without-json-schema',
  setup(build) {
    build.onResolve({ filter: /^\.\.\/core\/(?:json-schema-processors|to-json-schema)\.js$/ }, (args) =>
      /[\\/]zod[\\/]v4[\\/]classic[\\/]schemas\.js$/.test(args.importer) ? { path: zodJsonSchemaStub } : undefined,
    );
  },
};

const plugins: Plugin[] = [zodWithoutJsonSchema];
const bundleScript = fileURLToPath(new URL('./bundle-function.ts', import.meta.url));

/**
 * Builds one function into CDK's output directory (`tsx infra/bundle-function.ts`, synchronously,
 * as CDK's local bundling must be), then `after` adds its assets there. Own fields, so CDK's asset
 * cache (keyed on the serialised bundling options) tells functions apart.
 */
class LocalFunctionBundling implements ILocalBundling {
  constructor(
    readonly projectRoot: string,
    readonly entry: string,
    readonly bundleAwsSdk: boolean,
    private readonly after: (outputDir: string) => void,
  ) {}

  tryBundle(outputDir: string): boolean {
    const args = ['--import', 'tsx', bundleScript, this.entry, `${outputDir}/index.mjs`, String(this.bundleAwsSdk)];
    execFileSync(process.execPath, args, { cwd: this.projectRoot, stdio: ['ignore', 'inherit', 'inherit'] });
    this.after(outputDir);
    return true;
  }
}

/**
 * A function's code asset: `entry` bundled with `esbuildOptions` into `index.mjs` (handler
 * `index.handler`), hashed on that output, as NodejsFunction did. No Docker: the local bundling
 * always succeeds or fails the synth; the image is never pulled.
 */
export function functionCode(
  projectRoot: string,
  entry: string,
  bundleAwsSdk: boolean,
  after: (outputDir: string) => void = () => {},
): Code {
  return Code.fromAsset(projectRoot, {
    assetHashType: AssetHashType.OUTPUT,
    bundling: {
      image: DockerImage.fromRegistry('local-bundling-only'),
      local: new LocalFunctionBundling(projectRoot, entry, bundleAwsSdk, after),
    },
  });
}

/**
 * `@aws-sdk/*` comes from the Lambda runtime (Node 22 ships SDK v3) unless `bundleAwsSdk`:
 * bundled, the SDK alone is ~380 KB per function, which no budget above leaves room for.
 * No source map: it doubled each zip and `--enable-source-maps` made Node read and parse it
 * at every cold start; a stack trace's index.mjs line:column maps back with a map built from
 * the same commit (the build is deterministic).
 */
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
    plugins,
  } as const;
}
