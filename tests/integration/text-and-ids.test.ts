import { beforeAll, describe, expect, test } from 'vitest';
import { type ApiClient, newOwner, uniqueOwner, useLocalServer } from '../fixtures/api.ts';
import { runCli } from '../fixtures/cli.ts';
import { makeFeature, makePlan, makeProject } from '../fixtures/factories.ts';
import { itemsOfOwner } from '../fixtures/table.ts';

const server = useLocalServer();
let api: ApiClient;
let ownerId: string;
let slug: string;

beforeAll(async () => {
  const owner = await newOwner('text');
  ownerId = owner.ownerId;
  api = server.client(owner.writeKey);
  slug = (await makeProject(api)).slug;
});

/** A 400 `validation_error` whose only detail names the field, and the message it gives. */
function expectRefused(response: { status: number; body: any; text: string }, path: string, message: RegExp) {
  expect(response.status, response.text).toBe(400);
  expect(response.body.error.code).toBe('validation_error');
  expect(response.body.error.details).toEqual([{ path, message: expect.stringMatching(message) }]);
  expect(response.body.error.message).toContain(`: ${path} `);
}

/** What the attack pass stored as names, each now a 400 with a message for people. */
const hostileNames: Array<[string, string, RegExp]> = [
  ['NUL', 'Pro\u0000', /^must not contain control characters$/],
  ['an ANSI escape', '\u001b[31mPro\u001b[0m', /^must not contain control characters$/],
  ['a right-to-left override', 'Pro\u202Egnp.exe', /^must not contain bidirectional control characters/],
  ['a zero-width space alone', '\u200B', /^must contain a visible character/],
  ['a lone surrogate', '\ud800', /lone surrogate/],
];

describe('names refuse what the text rule refuses, over HTTP', () => {
  test.each(hostileNames)(
    'a project named with %s is 400 naming `name`, and nothing is stored',
    async (_what, name, message) => {
      const before = (await api.get('/api/v1/projects')).body;
      expectRefused(await api.post('/api/v1/projects', { name }), 'name', message);
      expect((await api.get('/api/v1/projects')).body).toEqual(before);
    },
  );

  test.each(hostileNames)(
    'a feature, a plan and a renamed project with %s are 400 naming `name`',
    async (_what, name, message) => {
      expectRefused(await api.post(`/api/v1/projects/${slug}/features`, { name, basePrice: 1 }), 'name', message);
      expectRefused(await api.post(`/api/v1/projects/${slug}/plans`, { name }), 'name', message);
      expectRefused(await api.put(`/api/v1/projects/${slug}`, { name }), 'name', message);
    },
  );

  test('the other single-line texts: condition and theme.fontFamily', async () => {
    const feature = await makeFeature(api, slug);
    expectRefused(
      await api.put(`/api/v1/projects/${slug}/features/${feature.id}`, { condition: 'Up to\u202E' }),
      'condition',
      /^must not contain bidirectional control characters/,
    );
    expectRefused(
      await api.put(`/api/v1/projects/${slug}`, { theme: { fontFamily: 'Inter\ud800' } }),
      'theme.fontFamily',
      /lone surrogate/,
    );
  });

  test('descriptions keep line breaks but refuse NUL, escapes and lone surrogates', async () => {
    const plan = await makePlan(api, slug, { description: 'Line one\nLine two\tend' });
    expect(plan.description).toBe('Line one\nLine two\tend');
    const path = `/api/v1/projects/${slug}/plans/${plan.id}`;
    expectRefused(await api.put(path, { description: 'a\u0000b' }), 'description', /^must not contain control/);
    expectRefused(await api.put(path, { description: '\u001b[2J' }), 'description', /^must not contain control/);
    expectRefused(
      await api.put(`/api/v1/projects/${slug}`, { pricingPageDescription: 'ok \udfff' }),
      'pricingPageDescription',
      /lone surrogate/,
    );
  });
});

describe('text is stored in NFC', () => {
  test('"e" + U+0301 is answered, read back and stored as "é" (U+00E9)', async () => {
    const decomposed = 'Cafe\u0301 cre\u0300me';
    const composed = 'Caf\u00e9 cr\u00e8me';
    const project = await makeProject(api, { name: decomposed, description: `${decomposed}\n` });
    expect(project.name).toBe(composed);
    const feature = await makeFeature(api, project.slug, { name: decomposed });
    expect(feature.name).toBe(composed);

    const read = (await api.get(`/api/v1/projects/${project.slug}`)).body;
    expect(read.name).toBe(composed);
    expect(read.description).toBe(`${composed}\n`);
    expect(read.features.map((f: { name: string }) => f.name)).toEqual([composed]);

    const stored = (await itemsOfOwner(ownerId)).filter((item) => item.slug === project.slug && 'name' in item);
    expect(stored.map((item) => item.name)).toEqual([composed, composed]);
  });
});

describe('ids past 2^53 − 1', () => {
  test('PUT …/features/9999999999999999 with a valid body is 404, not 500', async () => {
    const response = await api.put(`/api/v1/projects/${slug}/features/9999999999999999`, { name: 'x' });
    expect(response.status, response.text).toBe(404);
    expect(response.body.error.code).toBe('not_found');
  });

  test('POST …/plans with featureId 9007199254740993 is 400 naming the field', async () => {
    const feature = await makeFeature(api, slug);
    // JSON.stringify cannot write this number exactly: send the text a client would.
    const response = await api.post(`/api/v1/projects/${slug}/plans`, undefined, {
      rawBody: `{"name":"Big","features":[{"featureId":9007199254740993},{"featureId":${feature.id}}]}`,
      headers: { 'content-type': 'application/json' },
    });
    expectRefused(response, 'features[0].featureId', /^must be at most 9007199254740991$/);
  });

  test('DELETE …/plans/{id}/features?featureId=9999999999999999 is 400, not a lookup of 10000000000000000', async () => {
    const plan = await makePlan(api, slug);
    const response = await api.delete(`/api/v1/projects/${slug}/plans/${plan.id}/features?featureId=9999999999999999`);
    expectRefused(response, 'featureId', /^must be at most 9007199254740991$/);
  });
});

describe('API key names through the CLI', () => {
  test('a name with an ANSI escape exits 1, names the field, and creates no key', { timeout: 60_000 }, async () => {
    const owner = uniqueOwner('cli-text');
    const result = await runCli(['keys', 'create', '--owner', owner, '--permission', 'read', '--name', '\u001b[31mCI']);
    expect(result.status).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('name must not contain control characters');
    const listed = await runCli(['keys', 'list', '--owner', owner, '--json']);
    expect(listed.stdout.trim()).toBe('[]');
  });
});
