/**
 * An attack pass on assignments stored in their plan's item: concurrent writers of one plan
 * (adds, removes, multiplier changes, plan updates, duplicates, feature and plan deletes); bad
 * input; other owners' and projects' ids; a plan of 200 features. The oracle: what is stored is what the change log replays to.
 */
import { createServer, request } from 'node:http';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { type ApiClient, type ApiResponse, newOwner, useLocalServer } from '../fixtures/api.ts';
import { makeFeature, makePlan, makeProject } from '../fixtures/factories.ts';
import { itemsOfProject, type StoredAssignment, storedAssignments } from '../fixtures/table.ts';

vi.hoisted(() => {
  process.env.PROJECT_CACHE_TTL_SECONDS = '0';
});

/**
 * A proxy in front of DynamoDB Local that can hold one request while the test runs other
 * writers (a hook), then forwards it: the interleavings real concurrency makes now and then.
 */
type Hook = (operation: string, body: string) => Promise<void> | undefined;
async function startHookProxy(target: string) {
  let hook: Hook | undefined;
  let fired = false;
  const upstream = new URL(target);
  const proxy = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', async () => {
      const body = Buffer.concat(chunks);
      const operation = String(req.headers['x-amz-target'] ?? '').split('.')[1] ?? '';
      await hook?.(operation, body.toString('utf8'));
      const forward = request(
        { hostname: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: req.headers },
        (answer) => {
          res.writeHead(answer.statusCode ?? 500, answer.headers);
          answer.pipe(res);
        },
      );
      forward.on('error', () => res.destroy());
      forward.end(body);
    });
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const address = proxy.address();
  if (!address || typeof address === 'string') throw new Error('proxy has no port');
  return {
    url: `http://127.0.0.1:${address.port}`,
    /** Runs `run` once, before forwarding the first request `when` picks (the rest pass as they are). */
    once(when: (operation: string, body: string) => boolean, run: () => Promise<void>) {
      fired = false;
      hook = (operation, body) => {
        if (fired || !when(operation, body)) return undefined;
        fired = true;
        return run();
      };
    },
    /** Stops holding requests; whether the hook ran (the interleaving happened). */
    clear(): boolean {
      hook = undefined;
      return fired;
    },
    close: () =>
      new Promise<void>((resolve) => {
        proxy.closeAllConnections();
        proxy.close(() => resolve());
      }),
  };
}

const proxy = await startHookProxy(process.env.DYNAMODB_ENDPOINT as string);
process.env.DYNAMODB_ENDPOINT = proxy.url;
afterAll(() => proxy.close());

const server = useLocalServer();
let api: ApiClient;
let other: ApiClient;
let ownerId: string;

beforeAll(async () => {
  const owner = await newOwner('attack-assignments');
  ownerId = owner.ownerId;
  api = server.client(owner.writeKey);
  other = server.client((await newOwner('attack-assignments-other')).writeKey);
});

interface Project {
  slug: string;
  shareId: string;
  base: string;
  stored: { ownerId: string; slug: string; shareId: string };
}

async function project(): Promise<Project> {
  const made = await makeProject(api);
  return {
    slug: made.slug,
    shareId: made.shareId,
    base: `/api/v1/projects/${made.slug}`,
    stored: { ownerId, slug: made.slug, shareId: made.shareId },
  };
}

async function features(p: Project, count: number): Promise<number[]> {
  const ids: number[] = [];
  for (let i = 0; i < count; i += 25) {
    const made = await Promise.all(
      Array.from({ length: Math.min(25, count - i) }, (_, n) =>
        api.post(`${p.base}/features`, { name: `F${i + n}`, basePrice: 1 }),
      ),
    );
    for (const r of made) expect(r.status, r.text).toBe(201);
    ids.push(...made.map((r) => r.body.id as number));
  }
  return ids;
}

interface Change {
  id: number;
  action: string;
  resource: { type: string; id: number };
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
}

async function allChanges(slug: string): Promise<Change[]> {
  const changes: Change[] = [];
  let cursor: string | null = null;
  do {
    const page: ApiResponse = await api.get(
      `/api/v1/projects/${slug}/changes?limit=100${cursor ? `&cursor=${cursor}` : ''}`,
    );
    expect(page.status, page.text).toBe(200);
    changes.push(...page.body.changes);
    cursor = page.body.nextCursor;
  } while (cursor);
  return changes.reverse();
}

type Replayed = Map<number, { planId: number; featureId: number; multiplier: number }>;

/**
 * The assignments the change log says exist (planFeatureId → plan, feature, multiplier). An
 * entry's id is the time it was made, before its transaction: a feature delete may be listed
 * before a plan create (a duplicate) that committed first and whose entry its sweep then
 * removed. Ids are never reused, so the deletes of features and plans are applied last.
 */
function replay(changes: Change[]): Replayed {
  const state: Replayed = new Map();
  const cascades = changes.filter((c) => c.action === 'delete' && c.resource.type !== 'planFeature');
  for (const c of [...changes.filter((c) => !cascades.includes(c)), ...cascades]) {
    if (c.resource.type === 'plan' && c.action === 'create') {
      const pfs = (c.after?.planFeatures ?? []) as { id: number; featureId: number; multiplier: number }[];
      for (const pf of pfs)
        state.set(pf.id, { planId: c.resource.id, featureId: pf.featureId, multiplier: pf.multiplier });
    } else if (c.resource.type === 'plan' && c.action === 'delete') {
      for (const [id, a] of state) if (a.planId === c.resource.id) state.delete(id);
    } else if (c.resource.type === 'feature' && c.action === 'delete') {
      for (const [id, a] of state) if (a.featureId === c.resource.id) state.delete(id);
    } else if (c.resource.type === 'planFeature') {
      if (c.action === 'delete') state.delete(c.resource.id);
      else {
        const after = c.after as { planId: number; featureId: number; multiplier: number };
        state.set(c.resource.id, { planId: after.planId, featureId: after.featureId, multiplier: after.multiplier });
      }
    }
  }
  return state;
}

async function stored(p: Project): Promise<StoredAssignment[]> {
  return storedAssignments(await itemsOfProject(ownerId, p.slug, p.shareId)).filter((a) => a.shareId === p.shareId);
}

const brief = (pf: unknown) => {
  const { id, multiplier, feature } = pf as { id: number; multiplier: number; feature: { id: number } };
  return [id, feature.id, multiplier].join(':');
};

/** Stored assignments = replayed change log; no feature twice in a plan; reads agree. */
async function expectConsistent(p: Project) {
  const now = await stored(p);
  const log = replay(await allChanges(p.slug));
  const asStored = now
    .map((a) => `${a.planFeatureId}:${a.planId}:${a.featureId}:${a.multiplier}`)
    .sort()
    .join(' ');
  const asLogged = [...log]
    .map(([id, a]) => `${id}:${a.planId}:${a.featureId}:${a.multiplier}`)
    .sort()
    .join(' ');
  expect(asStored).toBe(asLogged);
  const pairs = now.map((a) => `${a.planId}:${a.featureId}`);
  expect(new Set(pairs).size).toBe(pairs.length);
  // Every plan's read shows what is stored for it.
  const plans = (await api.get(`${p.base}/plans`)).body.plans as { id: number; planFeatures: unknown[] }[];
  const whole = (await api.get(p.base)).body;
  for (const plan of plans) {
    // The list and the whole project (one read of the partition) show what the plan's own read does.
    const inProject = (whole.pricingPlans as { id: number; planFeatures: unknown[] }[]).find((x) => x.id === plan.id);
    expect(inProject?.planFeatures).toEqual(plan.planFeatures);
    const read = await api.get(`${p.base}/plans/${plan.id}/features`);
    expect(read.status, read.text).toBe(200);
    const shown = read.body.features.map((f: { id: number; feature: { id: number }; multiplier: number }) =>
      [f.id, f.feature.id, f.multiplier].join(':'),
    );
    const kept = now
      .filter((a) => a.planId === plan.id)
      .map((a) => [a.planFeatureId, a.featureId, a.multiplier].join(':'));
    expect(shown.sort()).toEqual(kept.sort());
    expect(plan.planFeatures.map(brief)).toEqual(read.body.features.map(brief));
  }
  return now;
}

const no500 = (responses: ApiResponse[]) => {
  for (const r of responses) expect(r.status, r.text).toBeLessThan(500);
};

describe('concurrent writers of one plan', () => {
  test('overlapping adds: each feature once, every add counted once, the log replays to what is stored', async () => {
    const p = await project();
    const ids = await features(p, 30);
    const plan = await makePlan(api, p.slug);
    const sets = Array.from({ length: 8 }, (_, n) => ids.slice(n * 3, n * 3 + 10));
    const responses = await Promise.all(
      sets.map((set) =>
        api.post(`${p.base}/plans/${plan.id}/features`, { features: set.map((featureId) => ({ featureId })) }),
      ),
    );
    no500(responses);
    for (const r of responses) expect(r.status, r.text).toBe(200);
    const union = new Set(sets.flat());
    expect(responses.reduce((sum, r) => sum + r.body.added, 0)).toBe(union.size);
    const now = await expectConsistent(p);
    expect(now.map((a) => a.featureId).sort()).toEqual([...union].sort());
  }, 30_000);

  for (const run of [1, 2] as const) {
    test(`adds, removes, multiplier changes, PUT plan, duplicate, feature deletes race (run ${run})`, async () => {
      const p = await project();
      const ids = await features(p, 16);
      const plan = await makePlan(api, p.slug, {
        features: ids.slice(0, 8).map((featureId) => ({ featureId, multiplier: 2 })),
      });
      const path = `${p.base}/plans/${plan.id}`;
      const writes: Promise<ApiResponse>[] = [];
      for (let n = 0; n < 8; n++) {
        writes.push(
          api.post(`${path}/features`, { features: ids.slice(4 + n, 10 + n).map((featureId) => ({ featureId })) }),
        );
        writes.push(api.put(`${path}/features/${ids[n]}`, { multiplier: 10 + n }));
        writes.push(api.delete(`${path}/features?featureId=${ids[(n * 3) % 16]}`));
        writes.push(api.put(path, { name: `Renamed ${n}` }));
      }
      writes.push(api.post(`${path}/duplicate`, {}));
      writes.push(api.delete(`${p.base}/features/${ids[5]}`));
      writes.push(api.delete(`${p.base}/features/${ids[12]}`));
      writes.push(api.post(`${path}/duplicate`, {}));
      const responses = await Promise.all(writes);
      no500(responses);
      for (const r of responses) expect([200, 201, 404, 409], r.text).toContain(r.status);
      const now = await expectConsistent(p);
      expect(now.some((a) => a.featureId === ids[5] || a.featureId === ids[12])).toBe(false);
    }, 60_000);
  }

  // A PUT of the plan is conditioned on the plan's version, which writes of its entries leave
  // alone: were it otherwise, assignment writes would starve it into a 409 (the attack pass).
  test('a plan update is not starved by writes of its assignments', async () => {
    const p = await project();
    const ids = await features(p, 40);
    const plan = await makePlan(api, p.slug, { features: ids.slice(0, 20).map((featureId) => ({ featureId })) });
    const path = `${p.base}/plans/${plan.id}`;
    const statuses: number[] = [];
    for (let round = 0; round < 5; round++) {
      const [put, ...rest] = await Promise.all([
        api.put(path, { name: `Round ${round}` }),
        ...ids.slice(0, 20).map((featureId) => api.put(`${path}/features/${featureId}`, { multiplier: round + 2 })),
        ...ids.slice(20).map((featureId) => api.post(`${path}/features`, { featureId })),
      ]);
      no500(rest);
      statuses.push((put as ApiResponse).status);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200]);
  }, 60_000);

  test('a plan delete racing adds, changes and duplicates leaves nothing of the plan', async () => {
    const p = await project();
    const ids = await features(p, 12);
    const plan = await makePlan(api, p.slug, { features: ids.slice(0, 4).map((featureId) => ({ featureId })) });
    const path = `${p.base}/plans/${plan.id}`;
    const responses = await Promise.all([
      ...ids.map((featureId) => api.post(`${path}/features`, { featureId })),
      api.put(`${path}/features/${ids[0]}`, { multiplier: 9 }),
      api.put(path, { name: 'Renamed' }),
      api.post(`${path}/duplicate`, {}),
      api.delete(path),
      api.post(`${path}/duplicate`, {}),
      ...ids.map((featureId) => api.post(`${path}/features`, { featureId, multiplier: 3 })),
    ]);
    no500(responses);
    const now = await expectConsistent(p);
    expect(now.filter((a) => a.planId === plan.id)).toEqual([]);
    const items = await itemsOfProject(ownerId, p.slug, p.shareId);
    expect(items.filter((i) => i.planId === plan.id)).toEqual([]);
  }, 30_000);
});

describe('bad input and other tenants', () => {
  test('every bad feature id or multiplier is a 4xx with an error body', async () => {
    const p = await project();
    const [f] = await features(p, 1);
    const plan = await makePlan(api, p.slug, { features: [{ featureId: f }] });
    const path = `${p.base}/plans/${plan.id}`;
    const badIds: unknown[] = [
      0,
      -1,
      1.5,
      1e20,
      2 ** 53,
      2 ** 53 + 2,
      Number.MAX_SAFE_INTEGER,
      '1',
      null,
      true,
      {},
      [],
      '__proto__',
    ];
    const responses: ApiResponse[] = [];
    for (const featureId of badIds) {
      responses.push(await api.post(`${path}/features`, { featureId }));
      responses.push(await api.post(`${path}/features`, { features: [{ featureId }] }));
      responses.push(await api.post(`${p.base}/plans`, { name: 'x', features: [{ featureId }] }));
    }
    for (const multiplier of [-1, 1e300, 1_000_001, Number.NaN, '2', null, 0.0000001]) {
      responses.push(await api.post(`${path}/features`, { featureId: f, multiplier }));
      responses.push(await api.put(`${path}/features/${f}`, { multiplier }));
    }
    for (const segment of [
      '0',
      '-1',
      '1.5',
      '99999999999999999999',
      '9007199254740993',
      'abc',
      '%20',
      '1e3',
      '__proto__',
    ]) {
      responses.push(await api.put(`${path}/features/${segment}`, { multiplier: 1 }));
      responses.push(await api.delete(`${path}/features?featureId=${segment}`));
      responses.push(await api.get(`${p.base}/plans/${segment}/features`));
      responses.push(await api.post(`${p.base}/plans/${segment}/features`, { featureId: f }));
      responses.push(await api.post(`${p.base}/plans/${segment}/duplicate`, {}));
    }
    responses.push(await api.post(`${path}/features`, { features: [] }));
    responses.push(await api.post(`${path}/features`, {}));
    responses.push(
      await api.post(`${path}/features`, { features: Array.from({ length: 1000 }, () => ({ featureId: f })) }),
    );
    responses.push(await api.delete(`${path}/features`));
    responses.push(await api.delete(`${path}/features?featureId=${f}&featureId=${f}`));
    for (const r of responses) {
      expect(r.status, r.text).toBeGreaterThanOrEqual(200);
      expect(r.status, r.text).toBeLessThan(500);
      if (r.status >= 400) expect(r.body?.error, r.text).toBeDefined();
    }
    await expectConsistent(p);
  }, 60_000);

  test("another owner's or another project's features and plans cannot be assigned or reached", async () => {
    const p = await project();
    const q = await project();
    const [mine] = await features(p, 1);
    const [sibling] = await features(q, 1);
    const foreignProject = await makeProject(other);
    const foreign = await makeFeature(other, foreignProject.slug);
    const foreignPlan = await makePlan(other, foreignProject.slug, { features: [{ featureId: foreign.id }] });
    const plan = await makePlan(api, p.slug, { features: [{ featureId: mine }] });
    const siblingPlan = await makePlan(api, q.slug, { features: [{ featureId: sibling }] });
    const path = `${p.base}/plans/${plan.id}`;
    const responses = [
      await api.post(`${path}/features`, { featureId: sibling }),
      await api.post(`${path}/features`, { featureId: foreign.id }),
      await api.post(`${p.base}/plans`, { name: 'x', features: [{ featureId: foreign.id }] }),
      await api.post(`${p.base}/plans/${siblingPlan.id}/features`, { featureId: mine }),
      await api.post(`${p.base}/plans/${foreignPlan.id}/features`, { featureId: mine }),
      await api.post(`${p.base}/plans/${foreignPlan.id}/duplicate`, {}),
      await api.get(`${p.base}/plans/${siblingPlan.id}/features`),
      await api.put(`${p.base}/plans/${siblingPlan.id}/features/${sibling}`, { multiplier: 4 }),
      await api.delete(`${p.base}/plans/${siblingPlan.id}/features?featureId=${sibling}`),
      await api.delete(`${p.base}/features/${sibling}`),
    ];
    for (const r of responses) expect(r.status, r.text).toBe(404);
    await expectConsistent(p);
    await expectConsistent(q);
  }, 30_000);

  test("a deleted project's plans and assignments do not show in a new project with its slug", async () => {
    const p = await project();
    const ids = await features(p, 3);
    const plan = await makePlan(api, p.slug, { features: ids.map((featureId) => ({ featureId })) });
    expect((await api.delete(p.base)).status).toBeLessThan(300);
    const again = await makeProject(api, { slug: p.slug });
    const q: Project = { ...p, shareId: again.shareId, stored: { ...p.stored, shareId: again.shareId } };
    const responses = [
      await api.get(`${q.base}/plans/${plan.id}/features`),
      await api.post(`${q.base}/plans/${plan.id}/features`, { featureId: ids[0] }),
      await api.put(`${q.base}/plans/${plan.id}`, { name: 'x' }),
      await api.post(`${q.base}/plans/${plan.id}/duplicate`, {}),
      await api.put(`${q.base}/plans/${plan.id}/features/${ids[0]}`, { multiplier: 2 }),
      await api.delete(`${q.base}/plans/${plan.id}/features?featureId=${ids[0]}`),
      await api.delete(`${q.base}/plans/${plan.id}`),
      await api.post(`${q.base}/plans`, { name: 'x', features: [{ featureId: ids[0] }] }),
    ];
    for (const r of responses) expect(r.status, r.text).toBe(404);
    expect((await api.get(`${q.base}/plans`)).body.plans).toEqual([]);
    expect(await stored(q)).toEqual([]);
  }, 30_000);
});

describe('If-Match on plan features', () => {
  test('an ETag read before another write of the plan still guards the assignment it names', async () => {
    const p = await project();
    const [a, b] = await features(p, 2);
    const plan = await makePlan(api, p.slug, { features: [{ featureId: a }] });
    const path = `${p.base}/plans/${plan.id}`;
    const read = await api.get(`${path}/features`);
    const etag = read.headers.get('etag') as string;
    expect(etag).toBeTruthy();
    // The list's ETag names the list: after an add it no longer matches.
    expect((await api.post(`${path}/features`, { featureId: b })).status).toBe(200);
    const stale = await api.put(`${path}/features/${a}`, { multiplier: 3 }, { headers: { 'if-match': etag } });
    expect(stale.status, stale.text).toBe(412);
    const removed = await api.delete(`${path}/features?featureId=${a}`, { headers: { 'if-match': etag } });
    expect(removed.status, removed.text).toBe(412);
    await expectConsistent(p);
  });
});

describe('the change log of an assignment', () => {
  test("its create's `after` is what the next write's `before` finds stored (createdAt too)", async () => {
    const p = await project();
    const [x] = await features(p, 1);
    const plan = await makePlan(api, p.slug);
    const path = `${p.base}/plans/${plan.id}`;
    expect((await api.post(`${path}/features`, { featureId: x })).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect((await api.put(`${path}/features/${x}`, { multiplier: 3 })).status).toBe(200);
    const log = (await allChanges(p.slug)).filter((c) => c.resource.type === 'planFeature');
    expect(log.map((c) => c.action)).toEqual(['create', 'update']);
    expect(log[1]?.before).toEqual(log[0]?.after);
  });
});

describe('a plan of 200 features', () => {
  test('added at once, with long data, duplicated and removed; each answer is what reads back', async () => {
    const p = await project();
    const ids = await features(p, 200);
    const plan = await makePlan(api, p.slug, { description: 'd'.repeat(1000), name: 'n'.repeat(100) });
    const path = `${p.base}/plans/${plan.id}`;
    const added = await api.post(`${path}/features`, {
      features: ids.map((featureId, n) => ({ featureId, multiplier: 1_000_000 - n })),
    });
    expect(added.status, added.text).toBe(200);
    expect(added.body.added).toBe(200);
    expect(added.body.features).toHaveLength(200);
    const again = await api.post(`${path}/features`, { features: ids.map((featureId) => ({ featureId })) });
    expect([again.status, again.body.added, again.body.skipped]).toEqual([200, 0, 200]);
    const copies = await Promise.all([api.post(`${path}/duplicate`, {}), api.post(`${path}/duplicate`, {})]);
    for (const c of copies) {
      expect(c.status, c.text).toBe(201);
      expect(c.body.planFeatures).toHaveLength(200);
    }
    const renamed = await api.put(path, { name: 'm'.repeat(100) });
    expect(renamed.status, renamed.text).toBe(200);
    expect(renamed.body.planFeatures).toHaveLength(200);
    await expectConsistent(p);
    // Removed one by one, 20 at a time, and half of those features deleted meanwhile: two
    // rounds of writers racing on the full plan and its copies (each round costs seconds of
    // conflicts, and more rounds race the same way).
    const touched = ids.slice(0, 40);
    for (let round = 0; round < touched.length; round += 20) {
      no500(
        await Promise.all(
          touched
            .slice(round, round + 20)
            .map((featureId, n) =>
              n % 2 === 0
                ? api.delete(`${path}/features?featureId=${featureId}`)
                : api.delete(`${p.base}/features/${featureId}`),
            ),
        ),
      );
    }
    const deleted = new Set(touched.filter((_, n) => n % 2 === 1));
    const now = await expectConsistent(p);
    const featuresOf = (planId: number) =>
      now
        .filter((a) => a.planId === planId)
        .map((a) => a.featureId)
        .sort((x, y) => x - y);
    expect(featuresOf(plan.id)).toEqual(ids.slice(40).sort((x, y) => x - y));
    const kept = ids.filter((featureId) => !deleted.has(featureId)).sort((x, y) => x - y);
    for (const c of copies) expect(featuresOf(c.body.id)).toEqual(kept);
    expect(now).toHaveLength(160 + 2 * 180);
  }, 120_000);
});

describe('interleavings held open at DynamoDB', () => {
  test('a removal that read an assignment removes only that one, not the one assigned again since', async () => {
    const p = await project();
    const [x] = await features(p, 1);
    const plan = await makePlan(api, p.slug, { features: [{ featureId: x, multiplier: 1 }] });
    const path = `${p.base}/plans/${plan.id}`;
    let again: ApiResponse | undefined;
    // The removal has read the assignment; before its write lands, another removal and an add.
    proxy.once(
      (operation, body) => operation === 'TransactWriteItems' && body.includes('REMOVE #assigned.#f'),
      async () => {
        expect((await api.delete(`${path}/features?featureId=${x}`)).status).toBe(200);
        again = await api.post(`${path}/features`, { featureId: x, multiplier: 1 });
      },
    );
    const removed = await api.delete(`${path}/features?featureId=${x}`);
    expect(proxy.clear()).toBe(true);
    expect(again?.status, again?.text).toBe(200);
    // The late removal finds its assignment gone: a 404 (or it removes the new one, logged as such).
    expect([200, 404]).toContain(removed.status);
    await expectConsistent(p);
  });

  test('a multiplier change that read an assignment does not change the one assigned again since', async () => {
    const p = await project();
    const [x] = await features(p, 1);
    const plan = await makePlan(api, p.slug, { features: [{ featureId: x, multiplier: 1 }] });
    const path = `${p.base}/plans/${plan.id}`;
    proxy.once(
      (operation, body) => operation === 'TransactWriteItems' && body.includes('SET #assigned.#f.#m'),
      async () => {
        expect((await api.delete(`${path}/features?featureId=${x}`)).status).toBe(200);
        expect((await api.post(`${path}/features`, { featureId: x, multiplier: 1 })).status).toBe(200);
      },
    );
    const changed = await api.put(`${path}/features/${x}`, { multiplier: 5 });
    expect(proxy.clear()).toBe(true);
    expect(changed.status, changed.text).toBe(200);
    await expectConsistent(p);
  });

  test('an add cut short keeps an entry another request changed since, with the entries that log it', async () => {
    const p = await project();
    const ids = await features(p, 60);
    const plan = await makePlan(api, p.slug);
    const path = `${p.base}/plans/${plan.id}`;
    const [x] = ids as [number];
    const y = ids[55] as number;
    let adds = 0;
    // The add's first transaction (x among its 48) has committed; before its second: x's
    // multiplier changed by another request (logged), and y (in the second) deleted.
    proxy.once(
      (operation, body) =>
        operation === 'TransactWriteItems' && body.includes('attribute_not_exists(#assigned.#f0)') && ++adds === 2,
      async () => {
        expect((await api.put(`${path}/features/${x}`, { multiplier: 9 })).status).toBe(200);
        expect((await api.delete(`${p.base}/features/${y}`)).status).toBe(200);
      },
    );
    const added = await api.post(`${path}/features`, { features: ids.map((featureId) => ({ featureId })) });
    expect(proxy.clear()).toBe(true);
    expect(added.status, added.text).toBe(404);
    const now = await expectConsistent(p);
    expect(now.map((a) => [a.featureId, a.multiplier])).toEqual([[x, 9]]);
  }, 30_000);

  test('an add cut short by a deleted feature undoes only its own entries, not one assigned again since', async () => {
    const p = await project();
    const ids = await features(p, 60);
    const plan = await makePlan(api, p.slug);
    const path = `${p.base}/plans/${plan.id}`;
    const [x] = ids as [number];
    const y = ids[55] as number;
    let adds = 0;
    // The add's first transaction (48 features, x among them) has committed; before its second:
    // x removed and assigned again by others, and y (in the second) deleted.
    proxy.once(
      (operation, body) =>
        operation === 'TransactWriteItems' && body.includes('attribute_not_exists(#assigned.#f0)') && ++adds === 2,
      async () => {
        expect((await api.delete(`${path}/features?featureId=${x}`)).status).toBe(200);
        expect((await api.post(`${path}/features`, { featureId: x, multiplier: 7 })).status).toBe(200);
        expect((await api.delete(`${p.base}/features/${y}`)).status).toBe(200);
      },
    );
    const added = await api.post(`${path}/features`, { features: ids.map((featureId) => ({ featureId })) });
    expect(proxy.clear()).toBe(true);
    expect(added.status, added.text).toBe(404);
    const now = await expectConsistent(p);
    expect(now.map((a) => [a.featureId, a.multiplier])).toEqual([[x, 7]]);
  }, 30_000);
});

describe('200 features under concurrency', () => {
  test('five adds of the same 200 features to a plan: each once, no 5xx', async () => {
    const p = await project();
    const ids = await features(p, 200);
    const plan = await makePlan(api, p.slug, { features: [{ featureId: ids[0] as number }] });
    const path = `${p.base}/plans/${plan.id}`;
    const shuffled = (n: number) => [...ids.slice(n * 40), ...ids.slice(0, n * 40)];
    const responses = await Promise.all([
      ...Array.from({ length: 5 }, (_, n) =>
        api.post(`${path}/features`, { features: shuffled(n).map((featureId) => ({ featureId, multiplier: n + 1 })) }),
      ),
      api.put(path, { name: 'Renamed meanwhile' }),
      api.post(`${path}/duplicate`, {}),
    ]);
    no500(responses);
    const adds = responses.slice(0, 5);
    for (const r of adds) expect(r.status, r.text).toBe(200);
    expect(adds.reduce((sum, r) => sum + r.body.added, 0)).toBe(199);
    for (const r of adds) expect(r.body.features).toHaveLength(200);
    const now = await expectConsistent(p);
    expect(now.filter((a) => a.planId === plan.id)).toHaveLength(200);
  }, 60_000);
});
