/**
 * Reads of one part of a project: GET features, POST plan and the writes
 * of one plan read only the feature head, the features and that plan, so their DynamoDB
 * requests do not grow with the project's other plans; every read endpoint stays one
 * request; and the items of a deleted project that still wait for their sweep in the same
 * partition are never read as the new project's.
 */
import { beforeAll, describe, expect, test } from 'vitest';
import { entriesOf } from '#db/plan-assignments.ts';
import { retireProject } from '#db/project-sweep.ts';
import { db } from '#db/service.ts';
import type { ProjectScope } from '#db/types.ts';
import { type ApiClient, newOwner, useLocalServer } from '../fixtures/api.ts';
import { type DynamoCall, recordDynamoCalls } from '../fixtures/dynamo-calls.ts';
import { featureItem, makeFeature, makePlan, makeProject, planItem } from '../fixtures/factories.ts';
import { entityOf, itemsOfProject, storedAssignments } from '../fixtures/table.ts';

// Without the in-process webhook dispatcher: its background reads and deletes of outbox items
// (a priced change writes plan.version_created) would land among the requests counted here.
const server = useLocalServer({ webhooksOut: false });
const record = recordDynamoCalls();
let api: ApiClient;
let ownerId: string;

beforeAll(async () => {
  const owner = await newOwner('parts');
  ownerId = owner.ownerId;
  api = server.client(owner.writeKey);
  await api.get('/api/v1/projects'); // the key's record is cached from here on
});

/** The DynamoDB calls one request makes, and its answer. */
async function callsOf(method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown) {
  const { result, calls } = await record(() =>
    method === 'GET' ? api.get(path) : method === 'POST' ? api.post(path, body) : api.put(path, body),
  );
  return { response: result, calls, names: calls.map((c: DynamoCall) => c.command).sort() };
}

const FEATURES = 200;
let nextId = 5_000_000_000 + Math.floor(Math.random() * 1e8);

/**
 * Plans of every feature, written straight into the table (through the API it would take
 * minutes) as the service stores them: the assignments in the plan's item.
 */
async function addPlans(scope: ProjectScope, featureIds: number[], plans: number): Promise<number[]> {
  const planIds = Array.from({ length: plans }, () => nextId++);
  const now = new Date().toISOString();
  await db()
    .entities.plan.put(
      planIds.map((planId) =>
        planItem({
          ...scope,
          planId,
          name: `P${planId}`,
          assigned: entriesOf(
            featureIds.map((featureId) => ({ featureId, multiplier: 1, planFeatureId: nextId++ })),
            now,
          ),
        }),
      ),
    )
    .go({ concurrency: 8 });
  return planIds;
}

describe('a part read touches only its part, whatever the rest of the project holds', () => {
  test('at 1,000 and at 5,000 assignments: GET features 1 Query, PUT plan 3, POST plan 4, PUT feature 2, GET plan features 2', async () => {
    const project = await makeProject(api);
    const scope = { ownerId, slug: project.slug, shareId: project.shareId };
    const base = `/api/v1/projects/${project.slug}`;
    const featureIds = Array.from({ length: FEATURES }, () => nextId++);
    await db()
      .entities.feature.put(featureIds.map((featureId) => featureItem({ ...scope, featureId, name: `F${featureId}` })))
      .go({ concurrency: 8 });
    const [planId] = await addPlans(scope, featureIds, 5);

    const measure = async () => {
      const features = await callsOf('GET', `${base}/features`);
      expect(features.response.status).toBe(200);
      expect(features.response.body.features).toHaveLength(FEATURES);
      const planFeatures = await callsOf('GET', `${base}/plans/${planId}/features`);
      expect(planFeatures.response.body.features).toHaveLength(FEATURES);
      const putPlan = await callsOf('PUT', `${base}/plans/${planId}`, { name: `Renamed ${nextId++}` });
      expect(putPlan.response.status).toBe(200);
      expect(putPlan.response.body.planFeatures).toHaveLength(FEATURES);
      const postPlan = await callsOf('POST', `${base}/plans`, {
        name: 'Ten',
        basePrice: 1,
        features: featureIds.slice(0, 10).map((featureId) => ({ featureId })),
      });
      expect(postPlan.response.status, postPlan.response.text).toBe(201);
      expect(postPlan.response.body.planFeatures).toHaveLength(10);
      const ten = `${base}/plans/${postPlan.response.body.id}`;
      const duplicate = await callsOf('POST', `${ten}/duplicate`, {});
      expect(duplicate.response.status, duplicate.response.text).toBe(201);
      const addFeatures = await callsOf('POST', `${ten}/features`, { featureId: featureIds[10] });
      expect(addFeatures.response.status, addFeatures.response.text).toBe(200);
      expect(addFeatures.response.body.features).toHaveLength(11);
      const multiplier = await callsOf('PUT', `${ten}/features/${featureIds[0]}`, { multiplier: 3 });
      expect(multiplier.response.status, multiplier.response.text).toBe(200);
      const putFeature = await callsOf('PUT', `${base}/features/${featureIds[0]}`, { name: `F ${nextId++}` });
      expect(putFeature.response.status).toBe(200);
      const whole = await callsOf('GET', base);
      expect(whole.response.status).toBe(200);
      return { features, planFeatures, putPlan, postPlan, duplicate, addFeatures, multiplier, putFeature, whole };
    };

    const small = await measure();
    // One Query of the key range from the feature head to the last feature, strongly consistent.
    expect(small.features.names).toEqual(['QueryCommand']);
    const [query] = small.features.calls as [DynamoCall];
    expect(query.input.KeyConditionExpression).toContain('BETWEEN');
    expect(query.input.ConsistentRead).toBe(true);
    // The plan's part: the feature range and the plan's item (with its assignments), at any size.
    expect(small.planFeatures.names).toEqual(['GetItemCommand', 'QueryCommand']);
    const featureRange = small.planFeatures.calls.find((c) => c.command === 'QueryCommand') as DynamoCall;
    const planRead = small.planFeatures.calls.find((c) => c.command === 'GetItemCommand') as DynamoCall;
    expect(featureRange.input.KeyConditionExpression).toContain('BETWEEN');
    expect(planRead.input.ConsistentRead).toBe(true);
    // The plan's part, then the version-guarded write with its change-log entry (its id from
    // the clock, no counter), in one transaction.
    expect(small.putPlan.names).toEqual(['GetItemCommand', 'QueryCommand', 'TransactWriteCommand']);
    // The plan's part; the plan and assignment id counters; the transaction.
    expect(small.duplicate.names).toEqual([
      'GetItemCommand',
      'QueryCommand',
      'TransactWriteCommand',
      'UpdateCommand',
      'UpdateCommand',
    ]);
    // The plan's part; the assignment id counter; the transaction; the plan's part again (the answer).
    expect(small.addFeatures.names).toEqual([
      'GetItemCommand',
      'GetItemCommand',
      'QueryCommand',
      'QueryCommand',
      'TransactWriteCommand',
      'UpdateCommand',
    ]);
    // The plan's part; the transaction.
    expect(small.multiplier.names).toEqual(['GetItemCommand', 'QueryCommand', 'TransactWriteCommand']);
    // The feature range; the plan and assignment id counters; the transaction.
    expect(small.postPlan.names).toEqual(['QueryCommand', 'TransactWriteCommand', 'UpdateCommand', 'UpdateCommand']);
    // The feature range; the transaction.
    expect(small.putFeature.names).toEqual(['QueryCommand', 'TransactWriteCommand']);
    expect(small.whole.calls).toHaveLength(1);

    await addPlans(scope, featureIds, 20); // 25 plans of 200 features: 5,000 assignments and more
    const big = await measure();
    for (const name of [
      'features',
      'planFeatures',
      'putPlan',
      'postPlan',
      'duplicate',
      'addFeatures',
      'multiplier',
      'putFeature',
    ] as const) {
      expect(big[name].names, name).toEqual(small[name].names);
    }
    // GET project reads what it returns, the whole partition: with the assignments in their
    // plans' items, 5,000 of them and 200 features still fit one page.
    expect(big.whole.calls).toHaveLength(1);
    const ids = (r: { body: { features: { id: number }[] } }) => r.body.features.map((f) => f.id);
    expect(ids(big.planFeatures.response)).toEqual(ids(small.planFeatures.response));
  }, 120_000);
});

describe('a deleted project whose items wait for their sweep', () => {
  test('lends none of them to the new project of its slug: reads miss them, writes naming them are 404s', async () => {
    const old = await makeProject(api);
    const oldFeature = await makeFeature(api, old.slug);
    const oldPlan = await makePlan(api, old.slug, { features: [{ featureId: oldFeature.id }] });
    // The delete's own transaction, and no sweep: the old items stay in the partition.
    expect(await retireProject({ ownerId, slug: old.slug })).not.toBe('not_found');
    const left = await itemsOfProject(ownerId, old.slug, old.shareId);
    expect(
      left
        .filter((item) => item.shareId === old.shareId && entityOf(item) !== 'projectSweep')
        .map(entityOf)
        .sort(),
    ).toEqual(['feature', 'plan']);
    expect(storedAssignments(left).map((a) => a.featureId)).toEqual([oldFeature.id]);

    const reborn = await makeProject(api, { slug: old.slug });
    const base = `/api/v1/projects/${old.slug}`;
    const feature = await makeFeature(api, old.slug);
    expect((await api.get(`${base}/features`)).body.features.map((f: { id: number }) => f.id)).toEqual([feature.id]);
    const oldPlanPath = `${base}/plans/${oldPlan.id}`;
    expect((await api.get(`${oldPlanPath}/features`)).status).toBe(404);
    expect((await api.put(oldPlanPath, { name: 'x' })).status).toBe(404);
    expect((await api.post(`${oldPlanPath}/duplicate`, {})).status).toBe(404);
    expect((await api.post(`${oldPlanPath}/features`, { featureId: feature.id })).status).toBe(404);
    // The old feature is not the new project's to assign.
    const refused = await api.post(`${base}/plans`, {
      name: 'P',
      basePrice: 1,
      features: [{ featureId: oldFeature.id }],
    });
    expect(refused.status).toBe(404);
    const plan = await makePlan(api, old.slug, { features: [{ featureId: feature.id }] });
    const added = await api.post(`${base}/plans/${plan.id}/features`, { featureId: oldFeature.id });
    expect(added.status).toBe(404);
    const duplicate = await api.post(`${base}/plans/${plan.id}/duplicate`, {});
    expect(duplicate.status).toBe(201);
    expect(duplicate.body.planFeatures.map((p: { feature: { id: number } }) => p.feature.id)).toEqual([feature.id]);
    const put = await api.put(`${base}/plans/${plan.id}`, { isPopular: true });
    expect(put.body.planFeatures.map((p: { feature: { id: number } }) => p.feature.id)).toEqual([feature.id]);
    expect((await api.get(base)).body.shareId).toBe(reborn.shareId);
  });

  test('the feature head goes in the delete transaction itself, before any sweep', async () => {
    const project = await makeProject(api);
    await makeFeature(api, project.slug);
    const heads = async () =>
      (await itemsOfProject(ownerId, project.slug, project.shareId)).filter((i) => entityOf(i) === 'featureHead');
    expect((await heads()).map((head) => head.shareId)).toEqual([project.shareId]);
    await retireProject({ ownerId, slug: project.slug });
    expect(await heads()).toEqual([]);
    expect((await api.get(`/api/v1/projects/${project.slug}/features`)).status).toBe(404);
  });
});
