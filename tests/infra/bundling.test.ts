import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Service } from 'electrodb';
import { build, type Metafile } from 'esbuild';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { esbuildOptions, functionBuildOptions } from '../../infra/bundling.ts';
import { Validator } from '../../infra/jsonschema-stub.ts';
import { entities } from '../../shared/db/service.ts';
import { repoRoot } from '../fixtures/cdk.ts';

/**
 * The deployed bundles answer ElectroDB's model check without jsonschema
 * (infra/jsonschema-stub.ts). Bundled that way, the Service must build the very requests it
 * builds here, where ElectroDB runs unbundled with the real validator.
 */

const scope = { ownerId: 'Owner-1', slug: 'acme' };
/** Requests touching every entity and both collections, the same script bundled and here. */
const probe = `
  const service = new Service(entities, { table: 'pricing-test' });
  const requests = [
    service.collections.projectData(${JSON.stringify(scope)}).params(),
    service.collections.share({ shareId: 'Share0000000000000000000001' }).params(),
    ...Object.values(entities).map((entity) => Object.keys(entity.schema.attributes).sort()),
    entities.feature.get({ ...${JSON.stringify(scope)}, featureId: 42 }).params(),
    entities.plan.query.projectData(${JSON.stringify(scope)}).params(),
    entities.counter.update({ ownerId: 'Owner-1', name: 'project' }).add({ value: 1 }).params(),
  ];
`;

let dir: string;
let bundled: unknown;
let bundle: string;

beforeAll(async () => {
  await mkdir(join(repoRoot, 'cdk.out'), { recursive: true });
  // Inside the repository: the bundle imports @aws-sdk/* from node_modules, as from the runtime.
  dir = await mkdtemp(join(repoRoot, 'cdk.out', 'bundling-test-'));
  const outfile = join(dir, 'probe.mjs');
  await build({
    ...esbuildOptions(false),
    stdin: {
      contents: `import { Service } from 'electrodb';\nimport { entities } from './shared/db/service.ts';\n${probe}\nconsole.log(JSON.stringify(requests));`,
      resolveDir: repoRoot,
      loader: 'ts',
    },
    outfile,
    logLevel: 'error',
  });
  bundle = await readFile(outfile, 'utf8');
  const { stdout } = await promisify(execFile)(process.execPath, [outfile], {
    env: { PATH: process.env.PATH ?? '', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
  });
  bundled = JSON.parse(stdout);
}, 60_000);

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('the deployed bundles', () => {
  test('bundle the AWS SDK unless told not to, and ship no source map', () => {
    expect(esbuildOptions().external).toEqual([]);
    expect(esbuildOptions(false).external).toEqual(['@aws-sdk/*']);
    expect(esbuildOptions().sourcemap).toBe(false);
    expect(esbuildOptions().minify).toBe(true);
    expect(esbuildOptions().format).toBe('esm');
  });
});

describe('ElectroDB in the deployed bundles', () => {
  test('carries no jsonschema', () => {
    expect(bundle).not.toContain('SchemaError');
    expect(bundle).toContain('is not a v1 model');
  });

  test('builds the same Service and requests as ElectroDB with the real validator', () => {
    const here = new Function('Service', 'entities', `${probe}\nreturn requests;`)(Service, entities);
    expect(bundled).toEqual(JSON.parse(JSON.stringify(here)));
  });

  test('the stub answers the two questions as the real check does: a v1 model is one, an Entity is not', () => {
    const validator = new Validator();
    const v1Schema = { properties: { model: {} } };
    const betaSchema = { properties: { service: {}, entity: {} } };
    const model = { model: { entity: 'x', version: '1', service: 'pricing' }, attributes: {}, indexes: {} };
    expect(validator.validate(model, v1Schema).errors).toEqual([]);
    expect(validator.validate(model, betaSchema).errors).not.toEqual([]);
    for (const entity of Object.values(entities)) {
      expect(validator.validate(entity, v1Schema).errors).not.toEqual([]);
    }
  });
});

describe('a function package', () => {
  /** Outputs Node reads when it imports `index.mjs`: it and what it imports statically. */
  const atInit = (metafile: Metafile, entry: string) => {
    const seen = new Set<string>();
    const visit = (path: string) => {
      if (seen.has(path) || !metafile.outputs[path]) return;
      seen.add(path);
      for (const imported of metafile.outputs[path].imports)
        if (imported.kind === 'import-statement') visit(imported.path);
    };
    visit(entry);
    return seen;
  };

  test("loads our lazy dependencies (Stripe, KMS, SQS) from chunks of their own, and keeps the SDK's own lazy loads where the baseline has them", async () => {
    const dir = await mkdtemp(join(repoRoot, 'cdk.out', 'package-test-'));
    try {
      const { metafile } = await build({
        ...functionBuildOptions(join(repoRoot, 'functions', 'plans', 'handler.ts'), dir, true),
        metafile: true,
        logLevel: 'error',
      });
      const entry = Object.keys(metafile.outputs).find((path) => path.endsWith('/index.mjs')) as string;
      const init = atInit(metafile, entry);
      const inputsOf = (outputs: string[]) =>
        outputs.flatMap((path) => Object.keys(metafile.outputs[path]?.inputs ?? {}));
      const initInputs = inputsOf([...init]);
      const lazyInputs = inputsOf(Object.keys(metafile.outputs).filter((path) => !init.has(path)));
      for (const lazy of [/node_modules\/stripe\//, /@aws-sdk\/client-kms\//, /@aws-sdk\/client-sqs\//]) {
        expect(initInputs.filter((path) => lazy.test(path))).toEqual([]);
        expect(lazyInputs.some((path) => lazy.test(path))).toBe(true);
      }
      // ElectroDB's require of every DocumentClient command is stubbed out: none it never sends is bundled.
      expect(initInputs.filter((path) => /ExecuteStatementCommand|ExportTableToPointInTime/.test(path))).toEqual([]);
      // The SDK's credential providers, which it imports at its first request, stay in the file.
      expect(initInputs.some((path) => /@aws-sdk\/credential-provider-ini\//.test(path))).toBe(true);
      expect(Object.keys(metafile.outputs).every((path) => path.endsWith('.mjs'))).toBe(true);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
