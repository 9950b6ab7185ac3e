import { beforeAll, describe, expect, test } from 'vitest';
import { db } from '#db/service.ts';
import { countedWrite } from '#db/transactions.ts';
import { type ApiClient, newOwner, useLocalServer } from '../fixtures/api.ts';
import { makeFeature, makePlan, makeProject } from '../fixtures/factories.ts';
import { sweepsFinished } from '../fixtures/sweeps.ts';
import { itemsOfOwner, type StoredAssignment, storedAssignments } from '../fixtures/table.ts';

const server = useLocalServer();
let api: ApiClient;
let ownerId: string;

beforeAll(async () => {
  const owner = await newOwner('consistency');
  ownerId = owner.ownerId;
  api = server.client(owner.writeKey);
});

async function assignmentsInTable(filter: (assignment: StoredAssignment) => boolean) {
  return storedAssignments(await itemsOfOwner(ownerId)).filter(filter);
}

describe('an assignment is unique per (plan, feature)', () => {
  test('under 20 concurrent single adds of the same pair: one added, 19 skipped, one item', async () => {
    const project = await makeProject(api);
    const feature = await makeFeature(api, project.slug);
    const plan = await makePlan(api, project.slug);
    const path = `/api/v1/projects/${project.slug}/plans/${plan.id}/features`;
    const responses = await Promise.all(Array.from({ length: 20 }, () => api.post(path, { featureId: feature.id })));
    expect(responses.map((r) => r.status)).toEqual(Array(20).fill(200));
    expect(responses.reduce((sum, r) => sum + r.body.added, 0)).toBe(1);
    expect(responses.reduce((sum, r) => sum + r.body.skipped, 0)).toBe(19);
    expect(await assignmentsInTable((i) => i.planId === plan.id)).toHaveLength(1);
    expect((await api.get(path)).body.features).toHaveLength(1);
  });

  test('under 20 concurrent overlapping batch adds: every feature assigned exactly once', async () => {
    const project = await makeProject(api);
    const features: Array<{ id: number }> = [];
    for (let i = 0; i < 8; i++) features.push(await makeFeature(api, project.slug));
    const plan = await makePlan(api, project.slug);
    const path = `/api/v1/projects/${project.slug}/plans/${plan.id}/features`;
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        api.post(path, { features: features.filter((_, j) => (i + j) % 3 !== 0).map((f) => ({ featureId: f.id })) }),
      ),
    );
    expect(responses.every((r) => r.status === 200)).toBe(true);
    expect(responses.reduce((sum, r) => sum + r.body.added, 0)).toBe(8);
    const stored = await assignmentsInTable((i) => i.planId === plan.id);
    expect(stored.map((i) => i.featureId).sort()).toEqual(features.map((f) => f.id).sort());
  });
});

describe('a deleted feature leaves no assignment behind', () => {
  test('also when the delete races adds of that feature to many plans', async () => {
    const project = await makeProject(api);
    const plans: Array<{ id: number }> = [];
    for (let i = 0; i < 5; i++) plans.push(await makePlan(api, project.slug));
    for (let round = 0; round < 5; round++) {
      const feature = await makeFeature(api, project.slug);
      const adds = plans.flatMap((plan) =>
        Array.from({ length: 4 }, () =>
          api.post(`/api/v1/projects/${project.slug}/plans/${plan.id}/features`, { featureId: feature.id }),
        ),
      );
      const deletion = api.delete(`/api/v1/projects/${project.slug}/features/${feature.id}`);
      const [deleted, ...added] = await Promise.all([deletion, ...adds]);
      expect(deleted?.status).toBe(200);
      // Each add either happened before the delete (200, then swept) or found the feature gone (404).
      for (const response of added) expect([200, 404]).toContain(response.status);
      expect(await assignmentsInTable((i) => i.featureId === feature.id)).toEqual([]);
    }
    const current = (await api.get(`/api/v1/projects/${project.slug}`)).body;
    expect(current.pricingPlans.every((p: { planFeatures: unknown[] }) => p.planFeatures.length === 0)).toBe(true);
  });

  test('and a deleted plan leaves none either, also when adds race it', async () => {
    const project = await makeProject(api);
    const features: Array<{ id: number }> = [];
    for (let i = 0; i < 6; i++) features.push(await makeFeature(api, project.slug));
    const plan = await makePlan(api, project.slug);
    const adds = features.map((f) =>
      api.post(`/api/v1/projects/${project.slug}/plans/${plan.id}/features`, { featureId: f.id }),
    );
    const [deleted] = await Promise.all([api.delete(`/api/v1/projects/${project.slug}/plans/${plan.id}`), ...adds]);
    expect(deleted.status).toBe(200);
    expect(await assignmentsInTable((i) => i.planId === plan.id)).toEqual([]);
  });
});

describe('a delete cut short by a crash is finished by the next delete of the same resource', () => {
  type Project = { slug: string; shareId: string };
  const keyOf = (project: Project) => ({ ownerId, slug: project.slug });

  /** A project with features A and B, each assigned to three plans. */
  async function assignedProject() {
    const project: Project = await makeProject(api);
    const a = await makeFeature(api, project.slug);
    const b = await makeFeature(api, project.slug);
    const plans: Array<{ id: number }> = [];
    for (let i = 0; i < 3; i++) {
      plans.push(
        await makePlan(api, project.slug, { features: [{ featureId: a.id }, { featureId: b.id, multiplier: 2 }] }),
      );
    }
    return { project, a, b, plans };
  }

  /** Every read that shows assignments, flattened to the (plan, feature) pairs it shows. */
  async function pairsShown(project: Project, planIds: number[]) {
    const base = `/api/v1/projects/${project.slug}`;
    const pairs: string[] = [];
    const fromPlans = (plans: Array<{ id: number; planFeatures: Array<{ feature: { id: number } }> }>) => {
      for (const plan of plans) for (const pf of plan.planFeatures) pairs.push(`${plan.id}:${pf.feature.id}`);
    };
    const listed = await api.get(`${base}/plans`);
    expect(listed.status).toBe(200);
    fromPlans(listed.body.plans);
    fromPlans((await api.get(base)).body.pricingPlans);
    for (const planId of planIds) {
      const features = await api.get(`${base}/plans/${planId}/features`);
      if (features.status === 200) {
        for (const pf of features.body.features) pairs.push(`${planId}:${pf.feature.id}`);
      }
    }
    const share = await api.get(`/api/share/${project.shareId}`);
    expect(share.status).toBe(200);
    const names = new Map(share.body.features.map((f: { id: number; name: string }) => [f.name, f.id]));
    for (const plan of share.body.plans) {
      for (const f of plan.features) if (f.included) pairs.push(`${plan.id}:${names.get(f.name)}`);
    }
    return new Set(pairs);
  }

  test('a feature: its assignments never show, and a repeated DELETE (404) removes them', async () => {
    const { project, a, b, plans } = await assignedProject();
    const key = keyOf(project);
    // What a process killed between the delete's transaction and its sweep leaves behind.
    const committed = await countedWrite({
      scope: { ...key, shareId: project.shareId },
      counter: 'featureCount',
      delta: -1,
      actions: ({ feature }) => [feature.delete({ ...key, featureId: a.id }).commit()],
    });
    expect(committed).toBe('committed');
    expect(await assignmentsInTable((i) => i.featureId === a.id)).toHaveLength(3);

    const shown = await pairsShown(project, [plans[0]?.id as number]);
    expect([...shown].filter((pair) => pair.endsWith(`:${a.id}`))).toEqual([]);
    expect([...shown].filter((pair) => pair.endsWith(`:${b.id}`)).length).toBeGreaterThan(0);

    const again = await api.delete(`/api/v1/projects/${project.slug}/features/${a.id}`);
    expect(again.status).toBe(404);
    expect(await assignmentsInTable((i) => i.featureId === a.id)).toEqual([]);
    expect(await assignmentsInTable((i) => i.featureId === b.id)).toHaveLength(3);
    const listed = (await api.get('/api/v1/projects')).body.projects.find((p: Project) => p.slug === project.slug);
    expect(listed._count).toEqual({ features: 1, pricingPlans: 3 });
    // Nothing left to finish: still 404.
    expect((await api.delete(`/api/v1/projects/${project.slug}/features/${a.id}`)).status).toBe(404);
  });

  test('a plan: it and its assignments never show, and a repeated DELETE (404) removes them', async () => {
    const { project, a, plans } = await assignedProject();
    const key = keyOf(project);
    const gone = plans[1]?.id as number;
    const committed = await countedWrite({
      scope: { ...key, shareId: project.shareId },
      counter: 'planCount',
      delta: -1,
      actions: ({ plan }) => [plan.delete({ ...key, planId: gone }).commit()],
    });
    expect(committed).toBe('committed');
    // Its assignments are stored in its item: they went with it, nothing is left to sweep.
    expect(await assignmentsInTable((i) => i.planId === gone)).toEqual([]);

    const base = `/api/v1/projects/${project.slug}`;
    const shown = await pairsShown(project, [gone]);
    expect([...shown].filter((pair) => pair.startsWith(`${gone}:`))).toEqual([]);
    expect(shown.has(`${plans[0]?.id}:${a.id}`)).toBe(true);
    expect((await api.get(`${base}/plans/${gone}/features`)).status).toBe(404);

    const again = await api.delete(`${base}/plans/${gone}`);
    expect(again.status).toBe(404);
    expect(await assignmentsInTable((i) => i.planId === gone)).toEqual([]);
    expect(await assignmentsInTable((i) => i.planId !== gone && i.slug === project.slug)).toHaveLength(4);
    const listed = (await api.get('/api/v1/projects')).body.projects.find((p: Project) => p.slug === project.slug);
    expect(listed._count).toEqual({ features: 2, pricingPlans: 2 });
  });
});

describe('_count is always right', () => {
  test('under concurrent creates and deletes of features and plans', async () => {
    const project = await makeProject(api);
    const base = `/api/v1/projects/${project.slug}`;
    const created = await Promise.all([
      ...Array.from({ length: 15 }, (_, i) => api.post(`${base}/features`, { name: `F${i}`, basePrice: 1 })),
      ...Array.from({ length: 10 }, (_, i) => api.post(`${base}/plans`, { name: `P${i}` })),
    ]);
    expect(created.every((r) => r.status === 201)).toBe(true);
    const featureIds = created.slice(0, 15).map((r) => r.body.id);
    const planIds = created.slice(15).map((r) => r.body.id);
    await Promise.all([
      ...featureIds.slice(0, 6).map((id) => api.delete(`${base}/features/${id}`)),
      ...featureIds.slice(0, 6).map((id) => api.delete(`${base}/features/${id}`)),
      ...planIds.slice(0, 4).map((id) => api.delete(`${base}/plans/${id}`)),
      ...planIds.slice(0, 2).map((id) => api.post(`${base}/plans/${id}/duplicate`)),
    ]);
    const full = (await api.get(base)).body;
    const listed = (await api.get('/api/v1/projects')).body.projects.find(
      (p: { slug: string }) => p.slug === project.slug,
    );
    expect(listed._count).toEqual({ features: full.features.length, pricingPlans: full.pricingPlans.length });
    expect(full.features).toHaveLength(9);
  });
});

describe('slugs never collide', () => {
  test('concurrent creates with one name get distinct derived slugs', async () => {
    const responses = await Promise.all(
      Array.from({ length: 10 }, () => api.post('/api/v1/projects', { name: 'Race Name' })),
    );
    expect(responses.every((r) => r.status === 201)).toBe(true);
    const slugs = responses.map((r) => r.body.slug);
    expect(new Set(slugs).size).toBe(10);
    expect(slugs).toContain('race-name');
  });

  test('concurrent creates with one explicit slug: exactly one wins, the rest are 409', async () => {
    const responses = await Promise.all(
      Array.from({ length: 10 }, (_, i) => api.post('/api/v1/projects', { name: `Explicit ${i}`, slug: 'one-slug' })),
    );
    expect(responses.filter((r) => r.status === 201)).toHaveLength(1);
    expect(responses.filter((r) => r.status === 409)).toHaveLength(9);
  });
});

describe('a project delete leaves nothing behind, whatever the size', () => {
  test('a project larger than one 1 MB Query page reads back whole and deletes whole', async () => {
    const owner = await newOwner('big');
    const mine = server.client(owner.writeKey);
    const project = await makeProject(mine);
    const features: Array<{ id: number }> = [];
    for (let batch = 0; batch < 10; batch++) {
      features.push(
        ...(await Promise.all(
          Array.from({ length: 20 }, () => makeFeature(mine, project.slug, { description: 'd'.repeat(1000) })),
        )),
      );
    }
    const plans = await Promise.all(Array.from({ length: 25 }, () => makePlan(mine, project.slug)));
    // 5,000 assignments (the most the limits allow), and plan descriptions long enough to take
    // the project past 1 MB, written straight to the table: seeding them through the API would
    // only slow the test down, the delete is what is under test.
    const { plan: plansTable } = db().entities;
    const now = new Date().toISOString();
    let id = 1_000_000_000;
    for (const plan of plans) {
      const assigned = Object.fromEntries(features.map((feature) => [feature.id, { i: id++, m: 1, c: now }]));
      await plansTable
        .patch({ ownerId: owner.ownerId, slug: project.slug, planId: plan.id })
        .set({ assigned, description: 'd'.repeat(30_000) })
        .go();
    }

    const full = (await mine.get(`/api/v1/projects/${project.slug}`)).body;
    expect(full.features).toHaveLength(200);
    expect(full.pricingPlans.reduce((n: number, p: { planFeatures: unknown[] }) => n + p.planFeatures.length, 0)).toBe(
      5000,
    );
    expect(Buffer.byteLength(JSON.stringify(await itemsOfOwner(owner.ownerId)))).toBeGreaterThan(1024 * 1024);

    const racing = Array.from({ length: 5 }, (_, i) =>
      mine.post(`/api/v1/projects/${project.slug}/features`, { name: `late ${i}`, basePrice: 1 }),
    );
    const [deleted, ...late] = await Promise.all([mine.delete(`/api/v1/projects/${project.slug}`), ...racing]);
    expect(deleted.status).toBe(200);
    // The project holds its 200 features: a create that lands before the delete's mark is
    // refused by the limit (409), one after it finds no project (404); none is half-written.
    for (const response of late) expect([404, 409]).toContain(response.status);
    await sweepsFinished(owner.ownerId);
    expect(await itemsOfOwner(owner.ownerId)).toEqual([]);
  }, 120_000);
});
