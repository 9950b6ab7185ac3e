/**
 * Plans stored before a plan's item moved under its assignments' key prefix (docs/decisions.md,
 * "Reads of a part"): a deploy finds them at the old sort key, and every endpoint still reads
 * and writes them. The first write of the plan item moves it (one transaction: the old key
 * deleted, the new one created), after which the plan is read in the one prefix Query; two
 * writers moving it at once leave exactly one plan item.
 */
import { beforeAll, describe, expect, test } from 'vitest';
import type { NewChangeEntryItem } from '#db/changes.ts';
import { insertAssignments, updatePlanItem } from '#db/plans.ts';
import { changeEntries, changeEntry } from '#domain/changes.ts';
import { loadPlan } from '#domain/projects/load.ts';
import { type ApiClient, newOwner, useLocalServer } from '../fixtures/api.ts';
import { recordDynamoCalls } from '../fixtures/dynamo-calls.ts';
import { makeFeature, makePlan, makeProject } from '../fixtures/factories.ts';
import { itemsOfProject, legacyPlanSortKey, storeAsLegacyPlan, storedPlanItems } from '../fixtures/table.ts';

const server = useLocalServer();
const record = recordDynamoCalls();
let api: ApiClient;
let visitor: ApiClient;
let ownerId: string;

beforeAll(async () => {
  const owner = await newOwner('legacy-plans');
  ownerId = owner.ownerId;
  api = server.client(owner.writeKey);
  visitor = server.client(null);
  await api.get('/api/v1/projects'); // the key's record is cached from here on
});

const featureIdsOf = (plan: { planFeatures: { feature: { id: number } }[] }) =>
  plan.planFeatures.map((p) => p.feature.id);

/** A project with three features and a plan of the first two, stored at the plan's old key. */
async function legacyPlan() {
  const project = await makeProject(api);
  const features = [];
  for (let i = 0; i < 3; i++) features.push(await makeFeature(api, project.slug));
  const plan = await makePlan(api, project.slug, {
    features: features.slice(0, 2).map((f) => ({ featureId: f.id, multiplier: 2 })),
  });
  const stored = { ownerId, slug: project.slug, shareId: project.shareId };
  await storeAsLegacyPlan(stored, plan.id);
  const path = `/api/v1/projects/${project.slug}/plans/${plan.id}`;
  return { project, features, plan, stored, path, featureIds: features.map((f) => f.id as number) };
}

/** The sort keys the plan's item is stored at (exactly one while the plan exists). */
const sortKeysOf = async (stored: Parameters<typeof storedPlanItems>[0], planId: number) =>
  (await storedPlanItems(stored, planId)).map((item) => item.sk);

const newSortKey = (planId: number) => `$projectData#planFeature_1#planId_${String(planId).padStart(12, '0')}`;

describe('a plan stored at its old key', () => {
  test('is listed by GET project, GET plans, GET share and read by GET plan features', async () => {
    const { project, plan, path, featureIds } = await legacyPlan();
    // Beside a plan stored at the new key: both layouts in one partition.
    const other = await makePlan(api, project.slug, { features: [{ featureId: featureIds[2] }] });
    const base = `/api/v1/projects/${project.slug}`;
    const whole = await api.get(base);
    expect(whole.body.pricingPlans.map((p: { id: number }) => p.id)).toEqual([plan.id, other.id]);
    const listed = await api.get(`${base}/plans`);
    expect(listed.body.plans).toEqual([plan, other]);
    const share = await visitor.get(`/api/share/${project.shareId}`);
    expect(share.body.plans.map((p: { id: number }) => p.id)).toEqual([plan.id, other.id]);
    const features = await api.get(`${path}/features`);
    expect(features.status).toBe(200);
    expect(features.body.features.map((f: { feature: { id: number } }) => f.feature.id)).toEqual(featureIdsOf(plan));
  });

  test('a PUT moves it to the new key in its own transaction; the next PUT is 3 requests', async () => {
    const { plan, stored, path } = await legacyPlan();
    const first = await record(() => api.put(path, { name: 'Moved' }));
    expect(first.result.status, first.result.text).toBe(200);
    expect(first.result.body).toMatchObject({ id: plan.id, name: 'Moved' });
    expect(featureIdsOf(first.result.body)).toEqual(featureIdsOf(plan));
    // The plan's prefix finds no plan item: one GetItem of the old key, then the move.
    expect(first.calls.map((c) => c.command).sort()).toEqual([
      'GetItemCommand',
      'QueryCommand',
      'QueryCommand',
      'TransactWriteCommand',
    ]);
    expect(await sortKeysOf(stored, plan.id)).toEqual([newSortKey(plan.id)]);

    const second = await record(() => api.put(path, { basePrice: 42 }));
    expect(second.result.status).toBe(200);
    expect(second.result.body).toMatchObject({ name: 'Moved', basePrice: 42 });
    expect(second.calls.map((c) => c.command).sort()).toEqual(['QueryCommand', 'QueryCommand', 'TransactWriteCommand']);
    expect(await sortKeysOf(stored, plan.id)).toEqual([newSortKey(plan.id)]);
    // Its change log holds both edits, as for any plan.
    const changes = await api.get(`/api/v1/projects/${stored.slug}/changes`);
    const edits = changes.body.changes.filter(
      (c: { resource: { type: string; id: number }; before: unknown }) =>
        c.resource.type === 'plan' && c.resource.id === plan.id && c.before !== null,
    );
    expect(edits).toHaveLength(2);
  });

  test('a PUT with a stale If-Match is refused and leaves it where it is', async () => {
    const { plan, stored, path } = await legacyPlan();
    const refused = await api.put(path, { name: 'No' }, { headers: { 'If-Match': '"not-the-etag"' } });
    expect(refused.status).toBe(412);
    expect(await sortKeysOf(stored, plan.id)).toEqual([legacyPlanSortKey(plan.id)]);
  });

  test('is deleted with its assignments', async () => {
    const { project, plan, stored, path } = await legacyPlan();
    expect((await api.delete(path)).status).toBe(200);
    expect(await storedPlanItems(stored, plan.id)).toEqual([]);
    expect((await api.get(`${path}/features`)).status).toBe(404);
    expect((await api.get(`/api/v1/projects/${project.slug}/plans`)).body.plans).toEqual([]);
    expect((await api.delete(path)).status).toBe(404);
    // Its plan count went down: the plan limit counts it no more.
    const listed = (await api.get('/api/v1/projects')).body.projects;
    expect(listed.find((p: { id: number }) => p.id === project.id)._count.pricingPlans).toBe(0);
  });

  test('is duplicated (the copy at the new key, the source untouched)', async () => {
    const { plan, stored, path } = await legacyPlan();
    const copy = await api.post(`${path}/duplicate`, {});
    expect(copy.status, copy.text).toBe(201);
    expect(featureIdsOf(copy.body)).toEqual(featureIdsOf(plan));
    expect(await sortKeysOf(stored, copy.body.id)).toEqual([newSortKey(copy.body.id)]);
    expect(await sortKeysOf(stored, plan.id)).toEqual([legacyPlanSortKey(plan.id)]);
  });

  test('gets features added, and its assignments changed and removed', async () => {
    const { path, featureIds } = await legacyPlan();
    const added = await api.post(`${path}/features`, { featureId: featureIds[2] });
    expect(added.status, added.text).toBe(200);
    expect(added.body).toMatchObject({ added: 1, skipped: 0 });
    expect(added.body.features.map((f: { feature: { id: number } }) => f.feature.id)).toEqual(featureIds);
    const changed = await api.put(`${path}/features/${featureIds[0]}`, { multiplier: 5 });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body.multiplier).toBe(5);
    expect((await api.delete(`${path}/features?featureId=${featureIds[1]}`)).status).toBe(200);
    const features = await api.get(`${path}/features`);
    expect(features.body.features.map((f: { feature: { id: number } }) => f.feature.id)).toEqual([
      featureIds[0],
      featureIds[2],
    ]);
  });

  test('a customer is put on it and gets its entitlements', async () => {
    const { project, plan, featureIds } = await legacyPlan();
    const customers = `/api/v1/projects/${project.slug}/customers`;
    const put = await api.put(`${customers}/ada`, { planId: plan.id });
    expect(put.status, put.text).toBe(200);
    const entitlements = await api.get(`${customers}/ada/entitlements`);
    expect(entitlements.status, entitlements.text).toBe(200);
    expect(JSON.stringify(entitlements.body)).toContain(String(featureIds[0]));
  });

  test('writers moving it at once leave one plan item, at the new key, with every edit', async () => {
    const { plan, stored, path, featureIds } = await legacyPlan();
    const names = ['A', 'B', 'C', 'D'];
    const [added, ...puts] = await Promise.all([
      api.post(`${path}/features`, { featureId: featureIds[2] }),
      ...names.map((name) => api.put(path, { name })),
    ]);
    expect(added?.status, added?.text).toBe(200);
    for (const put of puts) expect(put.status, put.text).toBe(200);
    const [item, ...more] = await storedPlanItems(stored, plan.id);
    expect(more).toEqual([]);
    expect(item?.sk).toBe(newSortKey(plan.id));
    // Every PUT committed once: one version each; the add moved it too when it landed before
    // the first move (at the old key, an entry write moves the version, so no move copies the
    // entries as they were).
    expect(item?.version).toBeGreaterThanOrEqual(1 + names.length);
    expect(item?.version).toBeLessThanOrEqual(1 + names.length + 1);
    const listed = (await api.get(`/api/v1/projects/${stored.slug}/plans`)).body.plans;
    expect(listed.map((p: { id: number }) => p.id)).toEqual([plan.id]);
    expect(featureIdsOf(listed[0])).toEqual(featureIds);
  });

  test('a delete racing a move: the plan is gone, with nothing left behind', async () => {
    const { plan, stored, path } = await legacyPlan();
    const [put, deleted] = await Promise.all([api.put(path, { name: 'Racing' }), api.delete(path)]);
    expect(deleted.status, deleted.text).toBe(200);
    expect([200, 404]).toContain(put.status);
    expect(await storedPlanItems(stored, plan.id)).toEqual([]);
    expect((await api.get(`${path}/features`)).status).toBe(404);
  });

  test('a project delete sweeps it with the rest, beside a plan at the new key', async () => {
    const { project, stored, featureIds } = await legacyPlan();
    await makePlan(api, project.slug, { features: [{ featureId: featureIds[2] }] });
    expect((await api.delete(`/api/v1/projects/${project.slug}`)).status).toBe(200);
    const left = async () =>
      (await itemsOfProject(ownerId, project.slug, stored.shareId)).filter((i) => i.shareId === stored.shareId);
    for (let i = 0; i < 100 && (await left()).length > 0; i++) await new Promise((done) => setTimeout(done, 100));
    expect(await left()).toEqual([]);
  });

  test('a writer that read it at its old key after a move: its update is stale, its assignment finds the plan', async () => {
    const { project, plan, stored, path, featureIds } = await legacyPlan();
    const read = await loadPlan(stored, plan.id);
    expect(read.layout).toBe('legacy');
    expect((await api.put(path, { name: 'Moved first' })).status).toBe(200);
    const writer = { keyId: 'test' };
    const entry = changeEntry(project.id, writer, { type: 'plan', id: plan.id }, null, null);
    const update = await updatePlanItem(
      read.scope,
      read.plan,
      read.layout,
      { name: 'Late', updatedAt: 'x' },
      entry,
      undefined,
    );
    expect(update).toBe('stale');
    const adding = { featureId: featureIds[2] as number, multiplier: 1, planFeatureId: 9_000_000_000 + plan.id };
    const [added] = changeEntries(project.id, writer, [
      { resource: { type: 'planFeature', id: adding.planFeatureId }, before: null, after: {} },
    ]);
    const target = {
      layout: read.layout,
      hasMap: read.plan.assigned !== undefined,
      featureDeletes: read.featureDeletes,
    };
    const inserted = await insertAssignments(read.scope, plan.id, target, [adding], [added as NewChangeEntryItem]);
    expect(inserted).toEqual({ added: [adding], alreadyAssigned: [] });
    expect(await sortKeysOf(stored, plan.id)).toEqual([newSortKey(plan.id)]);
    const features = await api.get(`${path}/features`);
    expect(features.body.features.map((f: { feature: { id: number } }) => f.feature.id)).toEqual(featureIds);
  });
});
