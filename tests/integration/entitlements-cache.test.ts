import { afterAll, beforeAll, expect, test, vi } from 'vitest';
import { type ApiClient, newOwner, useLocalServer } from '../fixtures/api.ts';
import { spyOnDynamoSends } from '../fixtures/dynamo-calls.ts';
import { makeFeature, makePlan, makeProject } from '../fixtures/factories.ts';

/**
 * billing.md's cost of an entitlement read: 2 DynamoDB requests cold (the project's
 * definition, then the customer), 1 once the project is in the per-container cache (10 s by
 * default). The API key's own cache is warmed first, so only the read itself is counted.
 */
// Without the in-process webhook dispatcher: its background deletes of dispatched outbox items
// would land among the requests counted here.
const server = useLocalServer({ webhooksOut: false });
let api: ApiClient;
let calls: string[] = [];

beforeAll(async () => {
  api = server.client((await newOwner('cache')).writeKey);
  // Every DynamoDB client of this process: the DocumentClient and the low-level one the warm reads use.
  spyOnDynamoSends(({ command }) => calls.push(command));
});

afterAll(() => {
  vi.restoreAllMocks();
});

test('an entitlement read is 2 DynamoDB requests cold, 1 warm; a list page is 1 warm', async () => {
  const project = await makeProject(api);
  const feature = await makeFeature(api, project.slug);
  const plan = await makePlan(api, project.slug, { features: [{ featureId: feature.id }] });
  await api.put(`/api/v1/projects/${project.slug}/customers/c1`, { planId: plan.id });
  const path = `/api/v1/projects/${project.slug}/customers/c1/entitlements`;
  calls = [];
  expect((await api.get(path)).body.planId).toBe(plan.id);
  // The customer and this month's usage of each countable feature: one BatchGetItem.
  expect(calls).toEqual(['QueryCommand', 'BatchGetCommand']);
  calls = [];
  expect((await api.get(path)).body.planId).toBe(plan.id);
  expect(calls).toEqual(['BatchGetCommand']);
  calls = [];
  expect((await api.get(`${path}/${feature.id}`)).body.allowed).toBe(true);
  expect(calls).toEqual(['BatchGetCommand']);
  calls = [];
  expect((await api.get(`/api/v1/projects/${project.slug}/customers`)).body.customers).toHaveLength(1);
  expect(calls).toEqual(['QueryCommand']);
});

test('a consume is one transaction once the project is cached and the customer seen', async () => {
  const project = await makeProject(api);
  const feature = await makeFeature(api, project.slug, { isCountable: true, usageCount: 10 });
  const plan = await makePlan(api, project.slug, { features: [{ featureId: feature.id }] });
  await api.put(`/api/v1/projects/${project.slug}/customers/c1`, { planId: plan.id });
  const path = `/api/v1/projects/${project.slug}/customers/c1/entitlements/${feature.id}/consume`;
  calls = [];
  expect((await api.post(path, { eventId: 'e1' })).body.allowed).toBe(true);
  // Cold: the project, then the customer, its usage and the event id in one BatchGetItem.
  expect(calls).toEqual(['QueryCommand', 'BatchGetCommand', 'TransactWriteCommand']);
  calls = [];
  expect((await api.post(path, { eventId: 'e2' })).body.entitlement.usage).toBe(2);
  expect(calls).toEqual(['TransactWriteCommand']);
});
