/**
 * ETag, If-None-Match and If-Match on v1 (decisions.md "Scripting v1 safely"), over real HTTP
 * against DynamoDB Local: tags describe what the answer returns, a stale If-Match is a 412
 * that changes nothing, checks run 401, 403, 400, 404, then 412, and under 20 concurrent
 * PUTs with one If-Match exactly one wins.
 */
import { createHash } from 'node:crypto';
import { beforeAll, describe, expect, test } from 'vitest';
import { type ApiClient, type ApiResponse, newOwner, useLocalServer } from '../fixtures/api.ts';
import { makeFeature, makePlan, makeProject } from '../fixtures/factories.ts';

const server = useLocalServer();
let api: ApiClient;
let reader: ApiClient;

beforeAll(async () => {
  const owner = await newOwner('etags');
  api = server.client(owner.writeKey);
  reader = server.client(owner.readKey);
});

/** A strong tag, with its content coding's suffix when the answer came compressed (fetch accepts gzip). */
const etagOf = (response: ApiResponse) => {
  const etag = response.headers.get('etag');
  expect(`${etag}`, `${response.status} ${response.text}`).toMatch(/^"[A-Za-z0-9_-]{32}(-gzip|-br)?"$/);
  return etag as string;
};
const ifMatch = (etag: string) => ({ headers: { 'if-match': etag } });
const ifNoneMatch = (etag: string) => ({ headers: { 'if-none-match': etag } });

/** A project with a feature assigned to a plan, and the paths of each resource. */
async function setUp() {
  const project = await makeProject(api);
  const base = `/api/v1/projects/${project.slug}`;
  const feature = await makeFeature(api, project.slug, { name: 'SSO' });
  const plan = await makePlan(api, project.slug, { name: 'Pro', features: [{ featureId: feature.id }] });
  return {
    project,
    base,
    feature,
    plan,
    featurePath: `${base}/features/${feature.id}`,
    planPath: `${base}/plans/${plan.id}`,
    planFeaturePath: `${base}/plans/${plan.id}/features/${feature.id}`,
  };
}

describe('ETag and If-None-Match', () => {
  test('a GET answers with a strong ETag, and 304 with no body to an If-None-Match that names it', async () => {
    const { base } = await setUp();
    const first = await reader.get(base);
    const etag = etagOf(first);
    for (const header of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const again = await reader.get(base, ifNoneMatch(header));
      expect(again.status, header).toBe(304);
      expect(again.text).toBe('');
      expect(again.headers.get('etag')).toBe(etag);
    }
    expect((await reader.get(base, ifNoneMatch('"other"'))).status).toBe(200);
  });

  test('every list carries the ETag of the list, and 304s on it', async () => {
    const { base, plan } = await setUp();
    for (const path of ['/api/v1/projects', `${base}/features`, `${base}/plans`, `${base}/plans/${plan.id}/features`]) {
      const etag = etagOf(await reader.get(path));
      expect((await reader.get(path, ifNoneMatch(etag))).status, path).toBe(304);
    }
  });

  test('GET features: the body is byte for byte the features as created, the ETag is the hash of those bytes', async () => {
    const project = await makeProject(api);
    const base = `/api/v1/projects/${project.slug}`;
    // Stored items of more than a dozen attributes in several layouts (with and without a
    // description, countable or not), and text that is longer in UTF-8 than in characters.
    const created = [
      await makeFeature(api, project.slug, { name: 'Überwachung ✓', description: 'Ein „Test“ 🚀' }),
      await makeFeature(api, project.slug, { name: 'API calls', isCountable: true, usageCount: 1000, countPrice: 2 }),
      await makeFeature(api, project.slug, { name: 'SSO "quoted" \\ slash' }),
    ];
    const first = await reader.get(`${base}/features`);
    expect(first.status).toBe(200);
    expect(first.text).toBe(JSON.stringify({ features: created }));
    const hash = createHash('sha256').update(Buffer.from(first.text, 'utf8')).digest('base64url').slice(0, 32);
    expect(etagOf(first)).toBe(first.headers.get('content-encoding') ? `"${hash}-gzip"` : `"${hash}"`);
    const again = await reader.get(`${base}/features`, ifNoneMatch(`"${hash}"`));
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
  });

  test("a project's ETag changes when anything its GET returns changes, a feature included", async () => {
    const { base, featurePath } = await setUp();
    const before = etagOf(await reader.get(base));
    expect((await api.put(featurePath, { description: 'Single sign-on' })).status).toBe(200);
    const after = await reader.get(base, ifNoneMatch(before));
    expect(after.status).toBe(200);
    expect(etagOf(after)).not.toBe(before);
    // And the old one is stale for a write.
    const stale = await api.put(base, { name: 'Renamed' }, ifMatch(before));
    expect(stale.status).toBe(412);
  });

  test("a plan's ETag changes when a feature it shows is renamed", async () => {
    const { planPath, featurePath } = await setUp();
    const planTag = etagOf(await api.put(planPath, {}));
    expect((await api.put(featurePath, { name: 'SAML SSO' })).status).toBe(200);
    const stale = await api.put(planPath, { name: 'Renamed' }, ifMatch(planTag));
    expect(stale.status).toBe(412);
    const current = etagOf(await api.put(planPath, {}));
    expect(current).not.toBe(planTag);
    expect((await api.put(planPath, { name: 'Renamed' }, ifMatch(current))).status).toBe(200);
  });

  test('creates and PUTs answer with the ETag that the next If-Match takes', async () => {
    const { project, base } = await setUp();
    const created = await api.post(`${base}/features`, { name: 'Audit log', basePrice: 5 });
    const path = `${base}/features/${created.body.id}`;
    const first = await api.put(path, { basePrice: 6 }, ifMatch(etagOf(created)));
    expect(first.status).toBe(200);
    const second = await api.put(path, { basePrice: 7 }, ifMatch(etagOf(first)));
    expect(second.status).toBe(200);
    expect(second.body.basePrice).toBe(7);
    // The project's create too, and its GET agrees with its PUT.
    const got = await api.get(base);
    const put = await api.put(base, { description: 'x' }, ifMatch(etagOf(got)));
    expect(put.status).toBe(200);
    expect(etagOf(await api.get(base))).toBe(etagOf(put));
    expect(project.slug).toBeTruthy();
  });
});

describe('If-Match', () => {
  test('a stale If-Match is 412 precondition_failed on every PUT and DELETE, and changes nothing', async () => {
    const { base, featurePath, planPath, planFeaturePath, plan, feature } = await setUp();
    const stale = '"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"';
    const snapshot = async () => (await api.get(base)).body;
    const changesBefore = (await api.get(`${base}/changes`)).body.changes.length;
    const before = await snapshot();
    const writes: [string, () => Promise<ApiResponse>][] = [
      ['PUT project', () => api.put(base, { name: 'X' }, ifMatch(stale))],
      ['PUT feature', () => api.put(featurePath, { name: 'X' }, ifMatch(stale))],
      ['PUT plan', () => api.put(planPath, { name: 'X' }, ifMatch(stale))],
      ['PUT plan feature', () => api.put(planFeaturePath, { multiplier: 3 }, ifMatch(stale))],
      ['DELETE plan feature', () => api.delete(`${planPath}/features?featureId=${feature.id}`, ifMatch(stale))],
      ['DELETE plan', () => api.delete(planPath, ifMatch(stale))],
      ['DELETE feature', () => api.delete(featurePath, ifMatch(stale))],
      ['DELETE project', () => api.delete(base, ifMatch(stale))],
    ];
    for (const [name, write] of writes) {
      const response = await write();
      expect(response.status, name).toBe(412);
      expect(response.body.error.code, name).toBe('precondition_failed');
    }
    expect(await snapshot()).toEqual(before);
    expect((await api.get(`${base}/changes`)).body.changes).toHaveLength(changesBefore);
    expect(before.pricingPlans[0].id).toBe(plan.id);
  });

  test('a weak tag never matches; "*" matches whatever the version', async () => {
    const { featurePath, feature } = await setUp();
    const tag = etagOf(await api.put(featurePath, {}));
    expect((await api.put(featurePath, { name: 'Weak' }, ifMatch(`W/${tag}`))).status).toBe(412);
    const star = await api.put(featurePath, { name: 'Star' }, ifMatch('*'));
    expect(star.status).toBe(200);
    expect(star.body.id).toBe(feature.id);
  });

  test('a current If-Match lets each PUT and DELETE through', async () => {
    const { base, featurePath, planPath, planFeaturePath, feature } = await setUp();
    const planFeature = await api.put(planFeaturePath, { multiplier: 2 });
    expect((await api.put(planFeaturePath, { multiplier: 4 }, ifMatch(etagOf(planFeature)))).status).toBe(200);
    const again = await api.put(planFeaturePath, { multiplier: 4 });
    expect((await api.delete(`${planPath}/features?featureId=${feature.id}`, ifMatch(etagOf(again)))).status).toBe(200);
    expect((await api.delete(planPath, ifMatch(etagOf(await api.put(planPath, {}))))).status).toBe(200);
    expect((await api.delete(featurePath, ifMatch(etagOf(await api.put(featurePath, {}))))).status).toBe(200);
    expect((await api.delete(base, ifMatch(etagOf(await api.get(base))))).status).toBe(200);
    expect((await api.get(base)).status).toBe(404);
  });

  test('without If-Match, writes behave as before', async () => {
    const { featurePath, planPath } = await setUp();
    expect((await api.put(featurePath, { name: 'Plain' })).status).toBe(200);
    expect((await api.put(planPath, { name: 'Plain' })).status).toBe(200);
  });

  test('checks run 401, 403, 400, 404, then 412', async () => {
    const { base, planPath } = await setUp();
    const stale = ifMatch('"stale"');
    expect((await server.client(null).put(planPath, { name: 'x' }, stale)).status).toBe(401);
    expect((await reader.put(planPath, { name: 'x' }, stale)).status).toBe(403);
    expect((await api.put(planPath, { nmae: 'x' }, stale)).status).toBe(400);
    expect((await api.put(`${base}/plans/999999999`, { name: 'x' }, stale)).status).toBe(404);
    expect((await api.delete(`${base}/features/999999999`, stale)).status).toBe(404);
    expect((await api.put('/api/v1/projects/no-such-project', { name: 'x' }, stale)).status).toBe(404);
    expect((await api.put(planPath, { name: 'x' }, stale)).status).toBe(412);
  });
});

describe('20 concurrent PUTs with the same If-Match', () => {
  test.each([
    ['a plan', (s: Awaited<ReturnType<typeof setUp>>) => s.planPath, (i: number) => ({ name: `Racer ${i}` })],
    ['a feature', (s: Awaited<ReturnType<typeof setUp>>) => s.featurePath, (i: number) => ({ basePrice: i + 2 })],
    ['a project', (s: Awaited<ReturnType<typeof setUp>>) => s.base, (i: number) => ({ description: `Racer ${i}` })],
  ])('on %s: exactly one wins, 19 are 412, and the log holds one entry', async (_what, pathOf, bodyOf) => {
    const state = await setUp();
    const path = pathOf(state);
    const etag = etagOf(path === state.base ? await api.get(path) : await api.put(path, {}));
    const changesBefore = (await api.get(`${state.base}/changes`)).body.changes.length;
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => api.put(path, bodyOf(i), ifMatch(etag))));
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses.filter((s) => s >= 200 && s < 300)).toHaveLength(1);
    expect(statuses.filter((s) => s === 412)).toHaveLength(19);
    const winner = answers.find((a) => a.status === 200) as ApiResponse;
    // What the winner answered is what is stored, and its tag is the current one.
    const current = path === state.base ? await api.get(path) : await api.put(path, {});
    expect(etagOf(current)).toBe(etagOf(winner));
    const log = (await api.get(`${state.base}/changes`)).body.changes;
    expect(log).toHaveLength(changesBefore + 1);
  });
});

describe('If-Match under writes elsewhere in the project', () => {
  test('a feature PUT with a current If-Match goes through while other features keep changing', {
    timeout: 60_000,
  }, async () => {
    const { project, featurePath } = await setUp();
    const others = await Promise.all(
      Array.from({ length: 6 }, (_, i) => makeFeature(api, project.slug, { name: `Busy ${i}` })),
    );
    let busy = true;
    const writers = others.map(async (other, w) => {
      for (let i = 0; busy; i++) {
        await api.put(`/api/v1/projects/${project.slug}/features/${other.id}`, { description: `w${w}-${i}` });
      }
    });
    const statuses: number[] = [];
    try {
      for (let i = 0; i < 10; i++) {
        const etag = etagOf(await api.put(featurePath, {}));
        statuses.push((await api.put(featurePath, { description: `mine ${i}` }, ifMatch(etag))).status);
      }
    } finally {
      busy = false;
      await Promise.all(writers);
    }
    // The feature itself never changed in between: its If-Match always holds.
    expect(statuses).toEqual(Array(10).fill(200));
  });
});
