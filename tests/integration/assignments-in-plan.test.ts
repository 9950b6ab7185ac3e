/**
 * Assignments stored in their plan's item (docs/decisions.md, "Assignments in their plan"):
 * the stored form, the one feature-head check that keeps a deleted feature from being
 * assigned, and an add cut short leaving nothing behind.
 */
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import type { NewChangeEntryItem } from '#db/changes.ts';
import { insertAssignments, insertPlan } from '#db/plans.ts';
import { changeEntries, changeEntry } from '#domain/changes.ts';
import { planDefaults } from '#domain/plans/schemas.ts';
import { loadFeatures, loadPlan } from '#domain/projects/load.ts';
import { type ApiClient, newOwner, useLocalServer } from '../fixtures/api.ts';
import { startDynamoFaults } from '../fixtures/dynamo-faults.ts';
import { makeFeature, makePlan, makeProject } from '../fixtures/factories.ts';
import { entityOf, itemsOfProject, storedAssignments, storedPlanItems } from '../fixtures/table.ts';

vi.hoisted(() => {
  process.env.PROJECT_CACHE_TTL_SECONDS = '0';
});

// The server's DynamoDB is a proxy that can answer chosen requests as DynamoDB under contention.
const faults = await startDynamoFaults(process.env.DYNAMODB_ENDPOINT as string);
process.env.DYNAMODB_ENDPOINT = faults.url;
afterAll(() => faults.close());

const server = useLocalServer();
let api: ApiClient;
let ownerId: string;
const writer = { keyId: 'test' };

beforeAll(async () => {
  const owner = await newOwner('assignments-in-plan');
  ownerId = owner.ownerId;
  api = server.client(owner.writeKey);
});

async function projectWithFeatures(count: number) {
  const project = await makeProject(api);
  const features: { id: number }[] = [];
  for (let i = 0; i < count; i++) features.push(await makeFeature(api, project.slug, { name: `F${i}` }));
  const stored = { ownerId, slug: project.slug as string, shareId: project.shareId as string };
  return { project, features, stored, base: `/api/v1/projects/${project.slug}` };
}

describe('the stored form', () => {
  test('a plan of 200 features is one item of about 10 KB holding them', async () => {
    const { project, features, stored, base } = await projectWithFeatures(0);
    const ids: number[] = [];
    for (let i = 0; i < 200; i += 50) {
      const created = await Promise.all(
        Array.from({ length: 50 }, (_, n) => api.post(`${base}/features`, { name: `F${i + n}`, basePrice: 1 })),
      );
      ids.push(...created.map((r) => r.body.id as number));
    }
    features.push(...ids.map((id) => ({ id })));
    const plan = await makePlan(api, project.slug, {
      features: ids.map((featureId) => ({ featureId, multiplier: 2 })),
    });
    expect(plan.planFeatures).toHaveLength(200);
    const items = await itemsOfProject(ownerId, project.slug, project.shareId);
    expect(items.filter((i) => entityOf(i) === 'plan')).toHaveLength(1);
    const [item] = await storedPlanItems(stored, plan.id);
    const size = Buffer.byteLength(JSON.stringify(item?.assigned));
    expect(size).toBeGreaterThan(5_000);
    expect(size).toBeLessThan(12_000);
    expect(storedAssignments(items).map((a) => a.featureId)).toEqual([...ids].sort((a, b) => a - b));
    // Read back as created: ids, multipliers, every feature.
    const read = await api.get(`${base}/plans/${plan.id}/features`);
    expect(read.body.features).toEqual(
      plan.planFeatures.map((pf: { feature: object }) => ({ ...pf, feature: expect.objectContaining(pf.feature) })),
    );
  }, 60_000);
});

describe('a feature deleted while it is being assigned', () => {
  test('a plan create or an add that read it before the delete does not commit; nothing is stored', async () => {
    const { project, features, stored, base } = await projectWithFeatures(2);
    const [kept, doomed] = features.map((f) => f.id) as [number, number];
    const plan = await makePlan(api, project.slug, { features: [{ featureId: kept }] });
    const key = { ownerId, slug: project.slug as string };
    // Both read the features (and the head's count of feature deletes) before the delete.
    const read = await loadFeatures(key);
    const planRead = await loadPlan(key, plan.id);
    expect((await api.delete(`${base}/features/${doomed}`)).status).toBe(200);

    const now = new Date().toISOString();
    const fields = { ...planDefaults, name: 'Late', basePrice: 1, planId: 9_100_000_000 + plan.id };
    const entry = changeEntry(read.projectId, writer, { type: 'plan', id: fields.planId }, null, {});
    const created = await insertPlan(
      read.scope,
      { ...fields, ...read.scope, createdAt: now, updatedAt: now },
      [{ featureId: doomed, multiplier: 1, planFeatureId: 9_100_000_000 + plan.id }],
      25,
      entry as NewChangeEntryItem,
      read.featureDeletes,
    );
    expect(created).toBe('features_changed');
    expect(await storedPlanItems(stored, fields.planId)).toEqual([]);

    const adding = { featureId: doomed, multiplier: 1, planFeatureId: 9_200_000_000 + plan.id };
    const [added] = changeEntries(read.projectId, writer, [
      { resource: { type: 'planFeature', id: adding.planFeatureId }, before: null, after: {} },
    ]);
    const inserted = await insertAssignments(
      planRead.scope,
      plan.id,
      planRead.featureDeletes,
      [adding],
      [added as NewChangeEntryItem],
    );
    expect(inserted).toEqual({ missingFeatureId: doomed });
    expect(
      storedAssignments(await itemsOfProject(ownerId, project.slug, project.shareId)).map((a) => a.featureId),
    ).toEqual([kept]);
    const log = (await api.get(`${base}/changes`)).body;
    expect(JSON.stringify(log)).not.toContain(String(adding.planFeatureId));
  });

  test('under a concurrent delete, a create either 404s or lands before it: no entry of the feature survives', async () => {
    const { project, features, base } = await projectWithFeatures(12);
    const ids = features.map((f) => f.id);
    const results = await Promise.all([
      ...ids.map((featureId) => api.post(`${base}/plans`, { name: `P${featureId}`, features: [{ featureId }] })),
      ...ids.map((featureId) => api.delete(`${base}/features/${featureId}`)),
    ]);
    for (const r of results) expect([200, 201, 404], r.text).toContain(r.status);
    const left = storedAssignments(await itemsOfProject(ownerId, project.slug, project.shareId));
    expect(left).toEqual([]);
  });
});

describe('an add cut short', () => {
  test('by a 503 after its first transaction: neither its entries nor their change-log entries are left', async () => {
    const { project, base } = await projectWithFeatures(0);
    const ids: number[] = [];
    const created = await Promise.all(
      Array.from({ length: 60 }, (_, n) => api.post(`${base}/features`, { name: `F${n}`, basePrice: 1 })),
    );
    ids.push(...created.map((r) => r.body.id as number));
    const plan = await makePlan(api, project.slug);
    const logBefore = (await api.get(`${base}/changes`)).body;
    let transactions = 0;
    // The first transaction of the add commits; every later one conflicts until the add gives up.
    faults.set((operation) => (operation === 'TransactWriteItems' && ++transactions > 1 ? 'conflict' : undefined));
    const response = await api.post(`${base}/plans/${plan.id}/features`, {
      features: ids.map((featureId) => ({ featureId })),
    });
    faults.set(undefined);
    expect(response.status, response.text).toBe(503);
    expect(transactions).toBeGreaterThan(1);
    const left = storedAssignments(await itemsOfProject(ownerId, project.slug, project.shareId));
    expect(left).toEqual([]);
    expect((await api.get(`${base}/changes`)).body).toEqual(logBefore);
    // Sent again, it assigns every feature.
    const again = await api.post(`${base}/plans/${plan.id}/features`, {
      features: ids.map((featureId) => ({ featureId })),
    });
    expect(again.status, again.text).toBe(200);
    expect(again.body.added).toBe(60);
  }, 60_000);
});
