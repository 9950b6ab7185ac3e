import { existsSync, readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, test } from 'vitest';
import { documentedActions, errorCodesOf } from '#dev/openapi/document.ts';
import { examples } from '#dev/openapi/examples.ts';
import { generatedFiles, openApiDocument } from '#dev/openapi/generate.ts';
import { groups } from '#functions/groups.ts';
import { type DefinedGroup, route } from '#http/action.ts';
import { type Group, routeKey, routes } from '#shared/routes.ts';

const read = (file: string) => readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8');

describe('the OpenAPI document and what is generated from it', () => {
  test('docs/openapi.json, client/schema.d.ts and docs/api.md are up to date (npm run openapi)', async () => {
    const files = await generatedFiles();
    expect(Object.keys(files).sort()).toEqual(['client/schema.d.ts', 'docs/api.md', 'docs/openapi.json']);
    for (const [file, text] of Object.entries(files)) {
      expect(read(file), `${file} is stale: run npm run openapi`).toBe(text);
    }
  });

  test('every route of the route table is in the document, once', () => {
    const document = openApiDocument();
    const documented = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(documented.sort()).toEqual(routes.map(routeKey).sort());
  });

  test('a route without documented responses fails the generation, named', () => {
    const undocumented = {
      ...groups.share,
      actions: new Map(
        [...groups.share.actions].map(([key, action]) => [
          key,
          key === 'GET /widget.js' ? route('GET /widget.js', { run: action.run }) : action,
        ]),
      ),
    } as DefinedGroup<'share'>;
    expect(() => documentedActions({ ...groups, share: undocumented } as Record<Group, DefinedGroup>)).toThrow(
      /without documented responses.*GET \/widget\.js/,
    );
  });

  test('error codes follow the route: auth, body, path, and what the action declares', () => {
    const byKey = new Map<string, ReturnType<typeof documentedActions>[number]>(
      documentedActions(groups).map((entry) => [routeKey(entry.route), entry]),
    );
    const codes = (key: string) => {
      const entry = byKey.get(key);
      if (!entry) throw new Error(key);
      return errorCodesOf(entry.route, entry.action);
    };
    expect(codes('GET /api/v1/projects')).toEqual([
      'unauthorized',
      'validation_error',
      'unavailable',
      'internal_error',
    ]);
    expect(codes('POST /api/v1/projects/{slug}/plans')).toEqual([
      'unauthorized',
      'forbidden',
      'validation_error',
      'payload_too_large',
      'not_found',
      'conflict',
      'limit_exceeded',
      'unavailable',
      'internal_error',
    ]);
    expect(codes('OPTIONS /api/share/{shareId}')).toEqual(['internal_error']);
    expect(codes('GET /api/share/{shareId}')).toContain('unavailable');
    expect(codes('GET /health')).not.toContain('unavailable');
  });

  test('every PUT and DELETE that takes If-Match lists 409: its write retries and then gives up as conflict', () => {
    const writes = documentedActions(groups).filter((entry) => entry.action.doc?.etag === 'write');
    expect(writes.length).toBeGreaterThan(5);
    for (const { route, action } of writes) {
      expect(errorCodesOf(route, action), routeKey(route)).toContain('conflict');
    }
  });

  test('every example matches its operation (requests and answers)', () => {
    const document = openApiDocument();
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    ajv.addSchema(document, 'doc');
    const seen = new Set<string>();
    for (const [path, item] of Object.entries(document.paths)) {
      for (const [method, op] of Object.entries(item) as [string, any][]) {
        const example = examples[op.operationId];
        if (!example) continue;
        seen.add(op.operationId);
        const pointer = `doc#/paths/${path.replaceAll('/', '~1')}/${method}`;
        if (example.request !== undefined) {
          const validate = ajv.compile({ $ref: `${pointer}/requestBody/content/application~1json/schema` });
          expect(validate(example.request), `${op.operationId} request: ${ajv.errorsText(validate.errors)}`).toBe(true);
        }
        const status = Object.keys(op.responses).find((code) => code.startsWith('2'));
        const validate = ajv.compile({ $ref: `${pointer}/responses/${status}/content/application~1json/schema` });
        expect(validate(example.response), `${op.operationId} answer: ${ajv.errorsText(validate.errors)}`).toBe(true);
      }
    }
    expect([...seen].sort()).toEqual(Object.keys(examples).sort());
  });

  test('the reference documents every route and every field of every answer', () => {
    const reference = read('docs/api.md');
    for (const key of routes.map(routeKey)) expect(reference).toContain(`### \`${key}\``);
    const schemas = (openApiDocument().components as { schemas: Record<string, { properties?: object }> }).schemas;
    for (const [name, schema] of Object.entries(schemas)) {
      expect(reference).toContain(`### ${name}`);
      for (const field of Object.keys(schema.properties ?? {})) expect(reference).toContain(`| \`${field}\``);
    }
  });

  test('the README and the reference link only to files inside the repository, and those exist', () => {
    const root = fileURLToPath(new URL('../../', import.meta.url));
    for (const file of ['README.md', 'docs/api.md']) {
      const targets = [...read(file).matchAll(/\]\(([^)#\s]+)[^)]*\)/g)]
        .map(([, target]) => target as string)
        .filter((target) => !/^https?:/.test(target));
      for (const target of targets) {
        const resolved = resolve(dirname(resolve(root, file)), target);
        expect(relative(root, resolved).startsWith('..'), `${file} links outside: ${target}`).toBe(false);
        expect(existsSync(resolved), `${file} links to a missing ${target}`).toBe(true);
      }
      if (file === 'README.md') expect(targets).toContain('docs/api.md');
    }
  });
});
