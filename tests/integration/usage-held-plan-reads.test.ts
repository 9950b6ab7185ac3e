import { randomUUID } from 'node:crypto';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { beforeAll, expect, test, vi } from 'vitest';
import { storedVersion } from '#domain/versions/held.ts';
import { type ApiClient, newOwner, useLocalServer } from '../fixtures/api.ts';
import { type DynamoCall, recordDynamoCalls } from '../fixtures/dynamo-calls.ts';
import { makeFeature, makePlan, makeProject } from '../fixtures/factories.ts';

/**
 * A batch of /events decides each aggregate's thresholds on the limit its customer holds
 * (shared/domain/usage/alerts.ts): a customer holding another version than the cached plan
 * costs reads of that version, and they are made once per customer read, whatever the number
 * of features its events touch; customers holding one superseded version share its read. The
 * project cache is on, as deployed.
 */
vi.hoisted(() => {
  process.env.PROJECT_CACHE_TTL_SECONDS = '10';
});

// Without the in-process webhook dispatcher: its background reads would be counted here.
const server = useLocalServer({ webhooksOut: false });
const record = recordDynamoCalls();
let api: ApiClient;

beforeAll(async () => {
  api = server.client((await newOwner('held-reads')).writeKey);
});

const uid = () => randomUUID().slice(0, 8);

/** A project whose plan limits four countable features. */
async function limitedPlan() {
  const { slug, id: projectId } = await makeProject(api);
  const features = await Promise.all(
    [1, 2, 3, 4].map(() => makeFeature(api, slug, { isCountable: true, usageCount: 100 })),
  );
  const plan = await makePlan(api, slug, { features: features.map((f) => ({ featureId: f.id })) });
  return { slug, projectId: projectId as number, features, plan };
}

const grant = async (slug: string, customerId: string, planId: number) =>
  expect((await api.put(`/api/v1/projects/${slug}/customers/${customerId}`, { planId })).status).toBe(200);
const reprice = async (slug: string, planId: number, basePrice: number) =>
  (await api.put(`/api/v1/projects/${slug}/plans/${planId}`, { basePrice })).body.version;

/** One event per feature for each customer, in one batch: its answer and the DynamoDB calls it made. */
async function batchCalls(slug: string, customerIds: string[], featureIds: number[]) {
  const events = customerIds.flatMap((customerId) =>
    featureIds.map((featureId) => ({ eventId: `${customerId}-${featureId}-${uid()}`, customerId, featureId })),
  );
  const { result, calls } = await record(() => api.post(`/api/v1/projects/${slug}/events`, { events }));
  expect(result.status, result.text).toBe(200);
  expect(result.body).toEqual({ accepted: events.length, duplicates: 0 });
  return calls;
}

const sk = (call: DynamoCall) => String(call.input.Key?.sk ?? '');
const versionReads = (calls: DynamoCall[]) =>
  calls.filter((c) => c.command === 'GetCommand' && sk(c).startsWith('$planVersion'));
const customerKeys = (calls: DynamoCall[], customerId: string) =>
  calls
    .flatMap((c) => Object.values(c.input.RequestItems ?? {}).flatMap((r: any) => r.Keys as { sk: string }[]))
    .filter((k) => k.sk === `$customer_1#customerId_${customerId}`);
const partitionQueries = (calls: DynamoCall[], slug: string) =>
  calls.filter(
    (c) =>
      c.command === 'QueryCommand' && JSON.stringify(c.input.ExpressionAttributeValues ?? {}).includes(`slug_${slug}"`),
  );

test('a grandfathered customer with events for four features: its version read once, the customer once', async () => {
  const { slug, features, plan } = await limitedPlan();
  const customerId = `g-${uid()}`;
  await grant(slug, customerId, plan.id);
  expect(await reprice(slug, plan.id, 11)).toBe(2);
  const calls = await batchCalls(
    slug,
    [customerId],
    features.map((f) => f.id),
  );
  const reads = versionReads(calls);
  expect(reads).toHaveLength(1);
  expect(sk(reads[0] as DynamoCall)).toContain(`#version_${'1'.padStart(12, '0')}`);
  expect(customerKeys(calls, customerId)).toHaveLength(1);
});

test('a customer holding a version newer than the cached plan: the plan read again once for all its features', async () => {
  const { slug, features, plan } = await limitedPlan();
  // The project's definition is cached with the plan at version 1.
  await batchCalls(slug, [`warm-${uid()}`], [features[0].id]);
  expect(await reprice(slug, plan.id, 12)).toBe(2);
  const customerId = `n-${uid()}`;
  await grant(slug, customerId, plan.id);
  const calls = await batchCalls(
    slug,
    [customerId],
    features.map((f) => f.id),
  );
  // Version 2 is current, so not stored: one GetItem finds nothing, one Query reads the plan.
  expect(versionReads(calls)).toHaveLength(1);
  expect(partitionQueries(calls, slug)).toHaveLength(1);
  expect(customerKeys(calls, customerId)).toHaveLength(1);
});

test('customers holding one version, in one batch on a cold container, share one GetItem of it', async () => {
  const { slug, features, plan } = await limitedPlan();
  const customerIds = [1, 2, 3].map((i) => `s${i}-${uid()}`);
  for (const customerId of customerIds) await grant(slug, customerId, plan.id);
  expect(await reprice(slug, plan.id, 13)).toBe(2);
  const calls = await batchCalls(
    slug,
    customerIds,
    features.map((f) => f.id),
  );
  expect(versionReads(calls)).toHaveLength(1);
});

test('a failed read of a version is not kept: the next caller reads it again', async () => {
  const { projectId, plan, slug } = await limitedPlan();
  expect(await reprice(slug, plan.id, 14)).toBe(2);
  vi.spyOn(DynamoDBDocumentClient.prototype, 'send').mockImplementationOnce(async () => {
    throw new Error('DynamoDB unavailable');
  });
  await expect(storedVersion(projectId, plan.id, 1)).rejects.toThrow('DynamoDB unavailable');
  const { calls } = await record(() => storedVersion(projectId, plan.id, 1));
  expect(versionReads(calls)).toHaveLength(1);
  expect((await storedVersion(projectId, plan.id, 1))?.content).toBeDefined();
});
