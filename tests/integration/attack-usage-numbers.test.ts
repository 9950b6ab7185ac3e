import { randomUUID } from 'node:crypto';
import { beforeAll, expect, test, vi } from 'vitest';
import { type ApiClient, newOwner, useLocalServer } from '../fixtures/api.ts';
import { makeFeature, makePlan, makeProject } from '../fixtures/factories.ts';

/**
 * Sums past 2^53: events of the largest value (10^15) add up beyond what a double holds
 * exactly, in one batch or over several. Every route that writes or reads that aggregate
 * answers (never a 500), with the sum as the nearest double.
 */
vi.hoisted(() => {
  process.env.PROJECT_CACHE_TTL_SECONDS = '0';
});

const server = useLocalServer();
let api: ApiClient;
let slug: string;
let limited: number;
let unlimited: number;

beforeAll(async () => {
  const owner = await newOwner('bigsum');
  api = server.client(owner.writeKey);
  slug = (await makeProject(api)).slug;
  const sum = (name: string, extra = {}) =>
    makeFeature(api, slug, { name, isCountable: true, usageCount: 100, eventAggregationMethod: 'sum', ...extra });
  limited = (await sum('Credits')).id;
  unlimited = (await sum('Bytes', { condition: 'Unlimited' })).id;
  await makePlan(api, slug, {
    name: 'Free',
    isFree: true,
    features: [{ featureId: limited }, { featureId: unlimited }],
  });
});

const events = (customerId: string, featureId: number, values: number[]) =>
  api.post(`/api/v1/projects/${slug}/events`, {
    events: values.map((value) => ({ eventId: randomUUID(), customerId, featureId, value })),
  });
const entitlement = (customerId: string, featureId: number) =>
  api.get(`/api/v1/projects/${slug}/customers/${customerId}/entitlements/${featureId}`);
const consume = (customerId: string, featureId: number, amount: number) =>
  api.post(`/api/v1/projects/${slug}/customers/${customerId}/entitlements/${featureId}/consume`, {
    eventId: randomUUID(),
    amount,
  });

test('one batch whose sum passes 2^53', async () => {
  const c = `big-${randomUUID().slice(0, 8)}`;
  const sent = await events(c, unlimited, Array(20).fill(1e15));
  expect(sent.status, sent.text).toBe(200);
  expect(sent.body).toEqual({ accepted: 20, duplicates: 0 });
  const read = await entitlement(c, unlimited);
  expect(read.status, read.text).toBe(200);
  expect(read.body.usage).toBe(2e16);
});

test('a sum past 2^53 with a fraction, read, consumed and refused', async () => {
  const c = `frac-${randomUUID().slice(0, 8)}`;
  for (const featureId of [limited, unlimited]) {
    for (let i = 0; i < 10; i++) expect((await events(c, featureId, [1e15])).status).toBe(200);
    const fraction = await events(c, featureId, [0.5]);
    expect(fraction.status, fraction.text).toBe(200);
  }
  const all = await api.get(`/api/v1/projects/${slug}/customers/${c}/entitlements`);
  expect(all.status, all.text).toBe(200);
  expect(all.body.entitlements.map((e: { usage: number }) => e.usage)).toEqual([1e16, 1e16]);

  const allowed = await consume(c, unlimited, 1e12);
  expect(allowed.status, allowed.text).toBe(200);
  expect(allowed.body.allowed).toBe(true);
  expect(allowed.body.entitlement.usage).toBe(1.0001e16);
  const again = await consume(c, unlimited, 1);
  expect(again.status, again.text).toBe(200);
  expect(again.body.allowed).toBe(true);

  const refused = await consume(c, limited, 1);
  expect(refused.status, refused.text).toBe(200);
  expect(refused.body).toEqual({ allowed: false, entitlement: expect.objectContaining({ limit: 100, remaining: 0 }) });
});

test('a consume that saw a small usage meets one past 2^53 sent through /events since', async () => {
  const c = `stale-${randomUUID().slice(0, 8)}`;
  const first = await consume(c, limited, 1);
  expect(first.body).toEqual({ allowed: true, entitlement: expect.objectContaining({ usage: 1 }) });
  for (let i = 0; i < 10; i++) expect((await events(c, limited, [1e15])).status).toBe(200);
  expect((await events(c, limited, [0.5])).status).toBe(200);
  const refused = await consume(c, limited, 1);
  expect(refused.status, refused.text).toBe(200);
  expect(refused.body).toEqual({
    allowed: false,
    entitlement: expect.objectContaining({ usage: 1e16 + 2, remaining: 0 }),
  });
});
