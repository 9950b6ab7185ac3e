import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { build, type Metafile } from 'esbuild';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import * as z from 'zod';
import { customCss, customCssProblems } from '#domain/custom-css.ts';
import { projectsRoutes } from '#functions/projects/routes.ts';
import { routes } from '#functions/routes.ts';
import { routeKey } from '#shared/routes.ts';
import { esbuildOptions, functionBuildOptions } from '../../infra/bundling.ts';
import * as zodStub from '../../infra/zod-json-schema-stub.ts';
import { repoRoot } from '../fixtures/cdk.ts';

/**
 * The projects function as deployed (infra/bundling.ts): within the default 400 KB budget,
 * with zod's JSON Schema conversion left out (infra/zod-json-schema-stub.ts) and everything
 * its requests use unchanged. A probe bundled with the same options checks customCSS and
 * validates with zod in a fresh Node; its answers must be the ones the code gives unbundled.
 */

const texts = [
  '.card { position: fixed; top: 0 }',
  ':host { transform: scale(2); margin: -4px }',
  '@import url(https://example.com/x.css); .a { background: image-set("x.png" 1x) }',
  '.card { color: red } :host(.dark) .card { z-index: 9 }',
  // The fixture of css-tree's stale token (tests/fixtures/custom-css-after-long.ts): a long
  // text, then a malformed one, in one process; without clearStaleToken the second never ends.
  `.card { background: ${'f() '.repeat(50)}}`,
  '(@import)@supports)red\\66#bvar(--x)/* c */{of(02n+150%(.a@font-facenot--x@layerurl(x)\n',
];

/** What the probe prints, computed the same way here (unbundled) and in the bundle. */
const probeSource = `
  const problems = texts.map((text) => customCssProblems(text));
  const refused = customCss().safeParse('.card { position: fixed }');
  const tooLong = customCss().safeParse('a'.repeat(20_001));
  const schema = z.strictObject({ name: z.string().min(1).max(5), n: z.number().int().max(9) });
  const strict = schema.safeParse({ name: 'toolong', n: 10.5, extra: 1 });
  const answers = {
    problems,
    refused: refused.success ? null : refused.error.issues,
    tooLong: tooLong.success ? null : tooLong.error.issues,
    strict: strict.success ? null : strict.error.issues,
    checks: [z.string().min(2).max(5).minLength, z.string().max(5).maxLength, z.number().int().max(9).maxValue],
  };
  let toJsonSchema;
  try { toJsonSchema = z.string().toJSONSchema(); } catch (error) { toJsonSchema = String(error.message); }
`;

let dir: string;
let metafile: Metafile;
let bundled: { answers: unknown; toJsonSchema: unknown };

beforeAll(async () => {
  await mkdir(join(repoRoot, 'cdk.out'), { recursive: true });
  dir = await mkdtemp(join(repoRoot, 'cdk.out', 'projects-bundle-test-'));
  const projects = await build({
    ...functionBuildOptions(join(repoRoot, 'functions', 'projects', 'handler.ts'), dir, false),
    metafile: true,
    logLevel: 'error',
  });
  metafile = projects.metafile;
  const probe = join(dir, 'probe.mjs');
  await build({
    ...esbuildOptions(false),
    stdin: {
      contents: `import * as z from 'zod';
        import { customCss, customCssProblems } from './shared/domain/custom-css.ts';
        const texts = ${JSON.stringify(texts)};
        ${probeSource}
        console.log(JSON.stringify({ answers, toJsonSchema }));`,
      resolveDir: repoRoot,
      loader: 'ts',
    },
    outfile: probe,
    logLevel: 'error',
  });
  const { stdout } = await promisify(execFile)(process.execPath, [probe], {
    env: { PATH: process.env.PATH ?? '' },
    timeout: 20_000,
  });
  bundled = JSON.parse(stdout);
}, 60_000);

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('the deployed projects function', () => {
  test("carries its own routes only: functions/projects/routes.ts, none of the table's other routes (the $default fallback has them)", async () => {
    const code = await readFile(join(dir, 'index.mjs'), 'utf8');
    const inputs = Object.values(metafile.outputs).flatMap((output) => Object.keys(output.inputs));
    expect(inputs.some((path) => /functions\/projects\/routes\.ts$/.test(path))).toBe(true);
    // A route as its group's table declares it: its key, quoted, as the minifier keeps it.
    const quoted = (route: Parameters<typeof routeKey>[0]) => code.includes(`"${routeKey(route)}"`);
    const others = routes.filter((route) => route.group !== 'projects');
    expect(others.filter(quoted).map(routeKey)).toEqual([]);
    expect(projectsRoutes.every(quoted)).toBe(true);
    // And only the KMS keyring: the local key file code is left out.
    expect(code).toContain('in a deployed function');
    expect(code.includes('does not hold a base64-encoded')).toBe(false);
  });

  test("leaves zod's JSON Schema conversion out and keeps css-tree's parser alone (no walker, lexer or data)", () => {
    const bytes = (pattern: RegExp) =>
      Object.values(metafile.outputs)
        .flatMap((output) => Object.entries(output.inputs))
        .filter(([path]) => pattern.test(path))
        .reduce((sum, [, input]) => sum + input.bytesInOutput, 0);
    expect(bytes(/infra\/zod-json-schema-stub\.ts$/)).toBeGreaterThan(0);
    // Imported (the stub re-exports zod's aggregateChecks from its module) but none of it kept.
    expect(bytes(/zod\/v4\/core\/to-json-schema\.js$/)).toBe(0);
    // 17.5 KB with the conversion, ~1.8 KB of aggregateChecks alone.
    expect(bytes(/zod\/v4\/core\/json-schema-processors\.js$/)).toBeLessThan(3000);
    expect(bytes(/css-tree\/lib\/parser\//)).toBeGreaterThan(0);
    expect(bytes(/css-tree\/lib\/(?:walker|lexer|generator)\/|mdn-data|css-tree\/lib\/data/)).toBe(0);
  });

  test('checks customCSS and validates exactly as the code does unbundled', () => {
    // Evaluated here with the same source as the probe's, against the unbundled modules.
    const answers = new Function('z', 'customCss', 'customCssProblems', 'texts', `${probeSource}; return answers;`)(
      z,
      customCss,
      customCssProblems,
      texts,
    );
    expect(JSON.parse(JSON.stringify(answers))).toEqual(bundled.answers);
    const { problems } = bundled.answers as { problems: string[][] };
    expect(problems[0]).toEqual(['`position: fixed` is not allowed (line 1, in `.card`)']);
    expect(problems.at(-1)?.length).toBeGreaterThan(0);
  });

  test('only toJSONSchema() is gone from the bundle, with a message that says where', () => {
    expect(z.string().toJSONSchema()).toMatchObject({ type: 'string' });
    expect(bundled.toJsonSchema).toMatch(/left out of the deployed bundles/);
  });

  test("the stub answers every processor zod's classic schemas read (a zod upgrade adding one fails here)", async () => {
    const source = await readFile(join(repoRoot, 'node_modules', 'zod', 'v4', 'classic', 'schemas.js'), 'utf8');
    const read = new Set([...source.matchAll(/processors\.(\w+)\(/g)].map((match) => match[1] as string));
    expect(read.size).toBeGreaterThan(30);
    expect([...read].filter((name) => typeof (zodStub as Record<string, unknown>)[name] !== 'function')).toEqual([]);
  });
});
