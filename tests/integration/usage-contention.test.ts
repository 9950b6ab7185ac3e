import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { type ApiClient, type ApiResponse, newOwner, useLocalServer } from '../fixtures/api.ts';
import { startDynamoFaults } from '../fixtures/dynamo-faults.ts';
import { makeFeature, makePlan, makeProject } from '../fixtures/factories.ts';

/**
 * Writes that cannot commit in time (transactions that keep conflicting with concurrent
 * writers, or DynamoDB throttling) answer 503 `unavailable` with Retry-After, never a 500,
 * and leave nothing a resend would count twice. DynamoDB Local never conflicts nor throttles
 * (it runs transactions one at a time), so a proxy in front of it answers chosen requests as
 * DynamoDB does under contention (tests/fixtures/dynamo-faults.ts); the SDK and the table are
 * real. USAGE_RETRY_MS=0: a usage batch gives up at its first conflict, so no test waits 6 s.
 */
vi.hoisted(() => {
  process.env.PROJECT_CACHE_TTL_SECONDS = '0';
  process.env.USAGE_RETRY_MS = '0';
});

// Before anything reads the configuration: the server's DynamoDB is the proxy.
const faults = await startDynamoFaults(process.env.DYNAMODB_ENDPOINT as string);
process.env.DYNAMODB_ENDPOINT = faults.url;
afterAll(() => faults.close());

const server = useLocalServer();
let api: ApiClient;
let slug: string;
let f: Record<'calls' | 'volume' | 'users', { id: number }>;

beforeAll(async () => {
  api = server.client((await newOwner('usage-contention')).writeKey);
  ({ slug } = await makeProject(api));
  const countable = (eventAggregationMethod: string) =>
    makeFeature(api, slug, { isCountable: true, usageCount: 10, eventAggregationMethod });
  f = { calls: await countable('count'), volume: await countable('sum'), users: await countable('unique_count') };
});

const uid = () => randomUUID().slice(0, 8);
const usageOf = async (customerId: string, featureId: number) => {
  const response = await api.get(`/api/v1/projects/${slug}/customers/${customerId}/entitlements/${featureId}`);
  expect(response.status, response.text).toBe(200);
  return response.body.usage as number;
};

function expectUnavailable(response: ApiResponse) {
  expect(response.status, response.text).toBe(503);
  expect(response.headers.get('retry-after')).toBe('1');
  expect(response.headers.get('cache-control')).toBe('no-store');
  expect(response.body.error.code).toBe('unavailable');
  expect(response.body.error.message).toMatch(/send the same (request|batch) again/);
}

describe('POST …/events under contention', () => {
  test('a batch cut short by conflicts is a 503; what it committed counts once on the resend', async () => {
    const customerId = `cut-${uid()}`;
    // 300 events of one aggregate: four transactions, one after another (95 events each: the
    // aggregate's update and room for its threshold markers and events).
    const events = Array.from({ length: 300 }, (_, i) => ({
      eventId: `${customerId}-${i}`,
      customerId,
      featureId: f.calls.id,
    }));
    let transactions = 0;
    faults.set((operation) => (operation === 'TransactWriteItems' && ++transactions > 1 ? 'conflict' : undefined));
    const cut = await api.post(`/api/v1/projects/${slug}/events`, { events });
    faults.set(undefined);
    expectUnavailable(cut);
    // The first transaction committed whole (95 events with their ids), the rest nothing.
    expect(await usageOf(customerId, f.calls.id)).toBe(95);
    const resent = await api.post(`/api/v1/projects/${slug}/events`, { events });
    expect(resent.status, resent.text).toBe(200);
    expect(resent.body).toEqual({ accepted: 205, duplicates: 95 });
    expect(await usageOf(customerId, f.calls.id)).toBe(300);
  });

  test('20 concurrent senders on one customer: 503s under conflicts, resends, exact totals', {
    timeout: 120_000,
  }, async () => {
    const customerId = `hot-${uid()}`;
    // About a third of all transactions conflict, whoever sends them.
    faults.set((operation) => (operation === 'TransactWriteItems' && Math.random() < 0.35 ? 'conflict' : undefined));
    const statuses: number[] = [];
    let sent = 0;
    try {
      await Promise.all(
        Array.from({ length: 20 }, async (_, s) => {
          const events = Array.from({ length: 120 }, (_, i) => ({
            eventId: `${customerId}-${s}-${i}`,
            customerId,
            featureId: [f.calls.id, f.volume.id, f.users.id][i % 3],
            value: 0.1,
            property: `seat-${(s * 7 + i) % 50}`,
          }));
          sent += events.length;
          for (let attempt = 0; attempt < 60; attempt++) {
            const response = await api.post(`/api/v1/projects/${slug}/events`, { events });
            statuses.push(response.status);
            if (response.status === 200) {
              expect(response.body.accepted + response.body.duplicates).toBe(events.length);
              return;
            }
            expectUnavailable(response);
          }
          throw new Error(`sender ${s} never got its batch in`);
        }),
      );
    } finally {
      faults.set(undefined);
    }
    expect(statuses.filter((s) => s === 503).length).toBeGreaterThan(0);
    expect(statuses.filter((s) => s === 200).length).toBe(20);
    expect(await usageOf(customerId, f.calls.id)).toBe(sent / 3);
    expect(await usageOf(customerId, f.volume.id)).toBeCloseTo((sent / 3) * 0.1, 6);
    expect(await usageOf(customerId, f.users.id)).toBe(50);
  });

  test('throttling is a 503 too; the batch resent counts once', async () => {
    const customerId = `throttled-${uid()}`;
    const events = Array.from({ length: 10 }, (_, i) => ({
      eventId: `${customerId}-${i}`,
      customerId,
      featureId: f.calls.id,
    }));
    faults.set((operation) => (operation === 'TransactWriteItems' ? 'throttle' : undefined));
    const throttled = await api.post(`/api/v1/projects/${slug}/events`, { events });
    faults.set(undefined);
    expectUnavailable(throttled);
    expect((await api.post(`/api/v1/projects/${slug}/events`, { events })).body).toEqual({
      accepted: 10,
      duplicates: 0,
    });
    expect(await usageOf(customerId, f.calls.id)).toBe(10);
  });
});

describe('other writes under contention', () => {
  test('a feature create whose transaction keeps conflicting is a 503 that creates nothing', {
    timeout: 30_000,
  }, async () => {
    const before = (await api.get(`/api/v1/projects/${slug}/features`)).body.features.length;
    faults.set((operation) => (operation === 'TransactWriteItems' ? 'conflict' : undefined));
    const refused = await api.post(`/api/v1/projects/${slug}/features`, { name: `Busy ${uid()}`, basePrice: 1 });
    faults.set(undefined);
    expectUnavailable(refused);
    expect(faults.injected.conflict).toBeGreaterThan(1);
    expect((await api.get(`/api/v1/projects/${slug}/features`)).body.features.length).toBe(before);
    expect((await api.post(`/api/v1/projects/${slug}/features`, { name: `Calm ${uid()}`, basePrice: 1 })).status).toBe(
      201,
    );
  });

  test('features added to a plan in several transactions: a later one that keeps conflicting is a 503 that leaves no assignment and no change-log entry', {
    timeout: 60_000,
  }, async () => {
    // 60 features: two transactions of assignments (48 go in one, with their entries).
    const own = await makeProject(api);
    const features: { id: number }[] = [];
    for (let i = 0; i < 60; i += 10) {
      features.push(...(await Promise.all(Array.from({ length: 10 }, () => makeFeature(api, own.slug)))));
    }
    const plan = await makePlan(api, own.slug);
    const base = `/api/v1/projects/${own.slug}`;
    const logged = async () =>
      (await api.get(`${base}/changes?limit=100`)).body.changes.filter(
        (c: { resource: { type: string } }) => c.resource.type === 'planFeature',
      );
    let transactions = 0;
    // The first transaction commits, every later one conflicts.
    faults.set((operation) => (operation === 'TransactWriteItems' && ++transactions > 1 ? 'conflict' : undefined));
    const refused = await api.post(`${base}/plans/${plan.id}/features`, {
      features: features.map((f) => ({ featureId: f.id })),
    });
    faults.set(undefined);
    expectUnavailable(refused);
    expect((await api.get(`${base}/plans/${plan.id}/features`)).body.features).toEqual([]);
    // "A write that is refused or cancelled leaves no entry" (decisions.md, the change log).
    expect(await logged()).toEqual([]);
    const resent = await api.post(`${base}/plans/${plan.id}/features`, {
      features: features.map((f) => ({ featureId: f.id })),
    });
    expect(resent.status, resent.text).toBe(200);
    expect(resent.body.added).toBe(60);
    expect(await logged()).toHaveLength(60);
  });

  test('a feature delete that committed is a 200 even when removing its assignments is throttled (a 503 would say nothing changed, and its resend is a 404)', {
    timeout: 30_000,
  }, async () => {
    const feature = await makeFeature(api, slug);
    const plan = await makePlan(api, slug, { features: [{ featureId: feature.id }] });
    let committed = false;
    // Reads and batch deletes are throttled once the delete's transaction has committed.
    faults.set((operation) => {
      if (operation === 'TransactWriteItems') committed = true;
      else if (committed && (operation === 'Query' || operation === 'BatchWriteItem')) return 'throttle';
      return undefined;
    });
    const deleted = await api.delete(`/api/v1/projects/${slug}/features/${feature.id}`);
    faults.set(undefined);
    expect(faults.injected.throttle).toBeGreaterThan(0);
    expect(deleted.status, deleted.text).toBe(200);
    const listed = (await api.get(`/api/v1/projects/${slug}/features`)).body.features.map((f: { id: number }) => f.id);
    expect(listed).not.toContain(feature.id);
    // The assignment left behind is skipped by every reader (and swept with the project).
    expect((await api.get(`/api/v1/projects/${slug}/plans/${plan.id}/features`)).body.features).toEqual([]);
  });

  test('a customer delete that meets a transaction writing that customer is a 503, not a 500', async () => {
    const plan = await makePlan(api, slug);
    const customer = `busy-${uid()}`;
    const path = `/api/v1/projects/${slug}/customers/${customer}`;
    expect((await api.put(path, { planId: plan.id })).status).toBe(200);
    // The delete is a transaction (the customer and its customer.deleted event): DynamoDB
    // cancels it with TransactionConflict while another transaction (a grant, a webhook saving
    // the same customer) holds the item; past the retries it is a 503.
    faults.set((operation) => (operation === 'TransactWriteItems' ? 'conflict' : undefined));
    const refused = await api.delete(path);
    faults.set(undefined);
    expect(faults.injected.conflict).toBeGreaterThan(0);
    expectUnavailable(refused);
    expect((await api.get(path)).status).toBe(200);
    expect((await api.delete(path)).status).toBe(200);
  });

  test('a throttled read is a 503, not a 500', async () => {
    faults.set((operation) => (operation === 'Query' ? 'throttle' : undefined));
    const throttled = await api.get(`/api/v1/projects/${slug}`);
    faults.set(undefined);
    expectUnavailable(throttled);
  });
});
