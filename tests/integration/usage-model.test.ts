import fc from 'fast-check';
import { beforeAll, describe, expect, test, vi } from 'vitest';
import { type ApiClient, newOwner, useLocalServer } from '../fixtures/api.ts';
import { makeFeature, makePlan, makeProject } from '../fixtures/factories.ts';

/**
 * Every aggregation method against an independent model, over random event streams
 * (fast-check): random ids (so duplicates within and across batches), values, properties,
 * timestamps (so ties), customers, and random cuts of the stream into batches. The model is
 * written from billing.md alone: the first event of an id counts and later ones never do;
 * count, sum, max, distinct properties, and the value of the greatest timestamp with ties to
 * the later received.
 */
vi.hoisted(() => {
  process.env.PROJECT_CACHE_TTL_SECONDS = '0';
});

const server = useLocalServer();
let api: ApiClient;
let slug: string;
const methods = ['count', 'sum', 'max', 'unique_count', 'latest'] as const;
type Method = (typeof methods)[number];
const featureOf = {} as Record<Method, number>;

beforeAll(async () => {
  api = server.client((await newOwner('usage-model')).writeKey);
  slug = (await makeProject(api)).slug;
  for (const method of methods) {
    featureOf[method] = (
      await makeFeature(api, slug, { isCountable: true, usageCount: 1e9, eventAggregationMethod: method })
    ).id;
  }
  await makePlan(api, slug, { isFree: true, features: methods.map((m) => ({ featureId: featureOf[m] })) });
});

interface StreamEvent {
  id: number;
  customer: number;
  value: number;
  property: string;
  /** Milliseconds after the start of this UTC month. */
  offset: number;
}

/** The model: what billing.md says each customer's aggregate is after the stream. */
function model(method: Method, stream: StreamEvent[], customer: number): number {
  const seen = new Set<number>();
  const accepted = stream.filter((event) => {
    if (seen.has(event.id)) return false;
    seen.add(event.id);
    return true;
  });
  const mine = accepted.filter((event) => event.customer === customer);
  if (mine.length === 0) return 0;
  switch (method) {
    case 'count':
      return mine.length;
    case 'sum':
      return mine.reduce((total, event) => total + event.value, 0);
    case 'max':
      return Math.max(...mine.map((event) => event.value));
    case 'unique_count':
      return new Set(mine.map((event) => event.property)).size;
    case 'latest': {
      const greatest = Math.max(...mine.map((event) => event.offset));
      return (mine.filter((event) => event.offset === greatest).at(-1) as StreamEvent).value;
    }
  }
}

const monthStart = () => {
  const now = new Date();
  return Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1);
};

let run = 0;

describe.each(methods)('%s against the model', (method) => {
  test('random streams in random batches', { timeout: 120_000 }, async () => {
    const sinceMonthStart = Math.max(1, Date.now() - monthStart() - 1_000);
    const event = fc.record({
      id: fc.integer({ min: 0, max: 25 }),
      customer: fc.integer({ min: 0, max: 2 }),
      // Whole and half numbers, negative too where the method takes them (a sum refuses them):
      // exact in DynamoDB's decimals and in doubles.
      value: fc.integer({ min: method === 'sum' ? 0 : -2_000, max: 2_000 }).map((n) => n / 2),
      property: fc.constantFrom('a', 'b', 'c', 'd', 'e', 'Ä', 'a '),
      // Few distinct instants, so ties are common.
      offset: fc.constantFrom(0, 1, 2, 3).map((k) => Math.floor((k * sinceMonthStart) / 3)),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.array(event, { minLength: 1, maxLength: 60 }),
        fc.array(fc.integer({ min: 1, max: 25 }), { minLength: 1, maxLength: 10 }),
        async (stream, cuts) => {
          run++;
          const customerId = (c: number) => `${method}-${run}-c${c}`;
          const body = (events: StreamEvent[]) => ({
            events: events.map((e) => ({
              eventId: `${method}-${run}-e${e.id}`,
              customerId: customerId(e.customer),
              featureId: featureOf[method],
              value: e.value,
              property: e.property,
              timestamp: new Date(monthStart() + e.offset).toISOString(),
            })),
          });
          let position = 0;
          const seen = new Set<number>();
          for (let i = 0; position < stream.length; i++) {
            const size = cuts[i % cuts.length] as number;
            const batch = stream.slice(position, position + size);
            position += size;
            const expectedAccepted = batch.filter((e) => !seen.has(e.id) && seen.add(e.id)).length;
            const response = await api.post(`/api/v1/projects/${slug}/events`, body(batch));
            expect(response.status, response.text).toBe(200);
            expect(response.body).toEqual({ accepted: expectedAccepted, duplicates: batch.length - expectedAccepted });
          }
          for (const customer of [0, 1, 2]) {
            const response = await api.get(
              `/api/v1/projects/${slug}/customers/${customerId(customer)}/entitlements/${featureOf[method]}`,
            );
            expect(response.status, response.text).toBe(200);
            expect(response.body.usage).toBe(model(method, stream, customer));
          }
        },
      ),
      { numRuns: 12 },
    );
  });
});
