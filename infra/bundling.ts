import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { builtinModules } from 'node:module';
import { fileURLToPath } from 'node:url';
import { AssetHashType, DockerImage, type ILocalBundling } from 'aws-cdk-lib';
import { Code } from 'aws-cdk-lib/aws-lambda';
import type { Plugin } from 'esbuild';

/**
 * How every function is bundled, in one place: the CDK stacks take `functionCode`, which runs
 * esbuild's API with `esbuildOptions` during synth, and `npm run cold-start` and the infra
 * tests build with the same `esbuildOptions`, so what they time and check is what is deployed.
 * The budget is init time, not bytes: `npm run cold-start` (scripts/cold-start.ts) holds each
 * function's import to a multiple of an SDK-only bundle's. The reasons for each choice:
 * docs/decisions.md, "Bundles and cold starts".
 */

/**
 * Init time, as `npm run cold-start` measures it: a function's import CPU as a multiple of an
 * SDK-only bundle's (the DynamoDB client and a DocumentClient, bundled the same way;
 * dev/cold-start-baseline.ts). payments and webhooks use Stripe's SDK in most requests, hence
 * their 2.5× target; elsewhere it, the KMS and SQS clients are chunks loaded at first use
 * (`functionBuildOptions`), outside init. `target` is the goal, printed beside each function,
 * which every function meets; `ceiling` is what fails the check: 0.3× above the target, the
 * room this check's medians need from run to run on a 2-core machine, so a change that costs a
 * function a third of the baseline's import fails it (docs/decisions.md, "Bundles and cold
 * starts", has the runs).
 */
export const initBudget = {
  target: { default: 2, payments: 2.5, webhooks: 2.5 },
  ceiling: { default: 2.3, payments: 2.8, webhooks: 2.8 },
} as const;

/** A function's init target or ceiling, as a multiple of the baseline's. */
export const initBudgetOf = (name: string, kind: keyof typeof initBudget): number => {
  const budget = initBudget[kind];
  return name in budget ? budget[name as keyof typeof budget] : budget.default;
};

/** CommonJS dependencies bundled into ESM still call require() for Node's built-ins. */
const banner = "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);";
const mainFields = ['module', 'main'];
const target = 'node22';
/** ElectroDB's model check, answered without the validator (infra/jsonschema-stub.ts). */
const jsonschemaStub = fileURLToPath(new URL('./jsonschema-stub.ts', import.meta.url));
const zodJsonSchemaStub = fileURLToPath(new URL('./zod-json-schema-stub.ts', import.meta.url));
const electrodbLibStub = fileURLToPath(new URL('./electrodb-lib-stub.ts', import.meta.url));

/**
 * ElectroDB's client module requires all of `@aws-sdk/lib-dynamodb`, and so every DynamoDB
 * command, evaluated at init; it reads it only to wrap a bare DocumentClient, and ours comes
 * wrapped (shared/db/service.ts), so infra/electrodb-lib-stub.ts answers that require.
 */
export const electrodbWithoutLib: Plugin = {
  name: 'electrodb-without-lib',
  setup(build) {
    build.onResolve({ filter: /^@aws-sdk\/lib-dynamodb$/ }, (args) =>
      args.kind === 'require-call' && /[\\/]electrodb[\\/]src[\\/]client\.js$/.test(args.importer)
        ? { path: electrodbLibStub }
        : undefined,
    );
  },
};

/**
 * zod's classic schemas import its JSON Schema conversion for
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

/** `import("x")` with a literal specifier, as a dependency's own lazy loads write it. */
const literalImport = /\bimport\(\s*(["'])([^"'\s]+)\1\s*\)/g;
const builtins = new Set(builtinModules);

/**
 * A dependency's own `import()` of another bundled module stays in the file that imports it,
 * evaluated at its first use, as esbuild bundles it without code splitting: the rewrite makes it
 * a `require()`, which esbuild resolves to the same lazy module initialiser. Only our own
 * `import()` calls (Stripe's SDK, the KMS and SQS clients) become chunk files, so a function
 * and the SDK-only baseline carry the SDK's lazy credential providers alike. Node's built-ins
 * are left as they are (the runtime loads them either way).
 */
export const dependencyImportsInline: Plugin = {
  name: 'dependency-imports-inline',
  setup(build) {
    build.onLoad({ filter: /[\\/]node_modules[\\/].*\.m?js$/ }, async (args) => {
      const source = await readFile(args.path, 'utf8');
      if (!source.includes('import(')) return undefined;
      const contents = source.replace(literalImport, (call, quote: string, specifier: string) =>
        specifier.startsWith('node:') || builtins.has(specifier)
          ? call
          : `Promise.resolve().then(() => require(${quote}${specifier}${quote}))`,
      );
      return { contents, loader: 'js' };
    });
  },
};

const plugins: Plugin[] = [zodWithoutJsonSchema, electrodbWithoutLib, dependencyImportsInline];
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
    const args = ['--import', 'tsx', bundleScript, this.entry, outputDir, String(this.bundleAwsSdk)];
    execFileSync(process.execPath, args, { cwd: this.projectRoot, stdio: ['ignore', 'inherit', 'inherit'] });
    this.after(outputDir);
    return true;
  }
}

/**
 * A function's code asset: `entry` bundled with `functionBuildOptions` into `index.mjs` (handler
 * `index.handler`) and its `chunks/`, hashed on that output, as NodejsFunction did. No Docker: the local bundling
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
 * `@aws-sdk/*` is bundled (tree-shaken and minified with the rest), because Node imports one
 * file far faster than the runtime's SDK spread over hundreds of modules; `bundleAwsSdk: false`
 * (`-c bundleAwsSdk=false`) leaves it to the Lambda runtime (Node 22 ships SDK v3).
 * No source map: it doubled each zip and `--enable-source-maps` made Node read and parse it
 * at every cold start; a stack trace's index.mjs line:column maps back with a map built from
 * the same commit (the build is deterministic).
 */
export function esbuildOptions(bundleAwsSdk = true) {
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

/**
 * A deployed function's package: `entry` built into `outdir` as `index.mjs` (what Lambda
 * imports at init) beside `chunks/*.mjs`: what our code loads with `import()` at first use
 * (Stripe's SDK, the KMS and SQS clients) in chunks of its own, and code both sides share in
 * chunks `index.mjs` imports. Node neither reads nor compiles a lazy chunk before its first use,
 * where one file would have it compile all of it at init (docs/decisions.md, "Bundles and cold
 * starts").
 */
export function functionBuildOptions(entry: string, outdir: string, bundleAwsSdk = true) {
  return {
    ...esbuildOptions(bundleAwsSdk),
    entryPoints: { index: entry },
    outdir,
    splitting: true,
    outExtension: { '.js': '.mjs' },
    chunkNames: 'chunks/[name]-[hash]',
  } as const;
}
