import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Service } from 'electrodb';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { esbuildOptions } from '../../infra/bundling.ts';
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
