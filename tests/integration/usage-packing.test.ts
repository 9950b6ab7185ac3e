import { randomUUID } from 'node:crypto';
import { beforeAll, expect, test, vi } from 'vitest';
import { type ApiClient, newOwner, useLocalServer } from '../fixtures/api.ts';
import { recordDynamoCalls } from '../fixtures/dynamo-calls.ts';
import { makeFeature, makeProject } from '../fixtures/factories.ts';

/**
 * A batch's transactions are planned after what it read is stored (shared/db/usage-packing.ts):
 * a unique_count property whose marker exists takes no item, so its events pack twice as
 * densely, and a max or latest a chunk committed is what the aggregate's next chunk compares
 * with, so it does not send an update that is bound to fail. Fewer transactions per batch,
 * no cancelled ones, and the totals stay exact.
 */
vi.hoisted(() => {
  process.env.PROJECT_CACHE_TTL_SECONDS = '0';
});

const server = useLocalServer();
const record = recordDynamoCalls();
let api: ApiClient;
let slug: string;

beforeAll(async () => {
  api = server.client((await newOwner('usage-packing')).writeKey);
  ({ slug } = await makeProject(api));
});

const uid = () => randomUUID().slice(0, 8);
const countable = (eventAggregationMethod: string) =>
  makeFeature(api, slug, { isCountable: true, usageCount: 10, eventAggregationMethod });
const usageOf = async (customerId: string, featureId: number) =>
  (await api.get(`/api/v1/projects/${slug}/customers/${customerId}/entitlements/${featureId}`)).body.usage;

async function transactionsOf(events: unknown[]) {
  const { result, calls } = await record(() => api.post(`/api/v1/projects/${slug}/events`, { events }));
  expect(result.status, result.text).toBe(200);
  const transactions = calls.filter((call) => call.command === 'TransactWriteCommand');
  for (const t of transactions) expect(t.input.TransactItems.length).toBeLessThanOrEqual(100);
  return { body: result.body, transactions: transactions.length };
}

test('unique_count events whose properties are known pack 99 to a transaction, not 49', async () => {
  const users = await countable('unique_count');
  const customerId = `u-${uid()}`;
  const batch = (run: string) =>
    Array.from({ length: 300 }, (_, i) => ({
      eventId: `${run}-${i}`,
      customerId,
      featureId: users.id,
      property: `seat-${i % 3}`,
    }));
  // The first batch creates the three markers; it cannot know they will exist.
  expect((await transactionsOf(batch(uid()))).body).toEqual({ accepted: 300, duplicates: 0 });
  // The next one reads them first: 300 events are 4 transactions of ≤ 99 events (it was 7 of 49).
  const second = await transactionsOf(batch(uid()));
  expect(second.body).toEqual({ accepted: 300, duplicates: 0 });
  expect(second.transactions).toBe(4);
  expect(await usageOf(customerId, users.id)).toBe(3);
});

test('a max that a chunk committed is what the next chunk compares with: no update bound to fail', async () => {
  const peak = await countable('max');
  const level = await countable('latest');
  const customerId = `m-${uid()}`;
  const at = Date.now() - 60_000;
  // 250 events each, highest value and latest timestamp first: three chunks of one aggregate,
  // one after another, and only the first changes it.
  const events = Array.from({ length: 250 }, (_, i) => [
    { eventId: `${customerId}-m${i}`, customerId, featureId: peak.id, value: 250 - i },
    {
      eventId: `${customerId}-l${i}`,
      customerId,
      featureId: level.id,
      value: 250 - i,
      timestamp: new Date(at - i * 10).toISOString(),
    },
  ]).flat();
  const { body, transactions } = await transactionsOf(events);
  expect(body).toEqual({ accepted: 500, duplicates: 0 });
  // Three waves of two chunks each, packed in one transaction a wave (99 + 1 + 99 + 1 > 100: two).
  // Before, each later chunk sent its update, had it cancelled by the condition, and sent the
  // transaction again: 10.
  expect(transactions).toBe(6);
  expect(await usageOf(customerId, peak.id)).toBe(250);
  expect(await usageOf(customerId, level.id)).toBe(250);
});
