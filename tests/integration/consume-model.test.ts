import fc from 'fast-check';
import { beforeAll, expect, test, vi } from 'vitest';
import { createConsumer } from '#domain/usage/consume.ts';
import type { ConsumeResultView } from '#domain/usage/schemas.ts';
import { type ApiClient, newOwner, useLocalServer } from '../fixtures/api.ts';
import { makeFeature, makePlan, makeProject } from '../fixtures/factories.ts';

/**
 * Random interleavings of consumes and /events batches against a model: which consumes are
 * allowed, the usage each answer shows, what each batch accepts, and the usage stored. Event
 * ids are drawn from a small pool, so resends through either path are common; consumes go
 * over HTTP or through two other instances whose view of the usage falls behind, and some
 * run as bursts at once.
 */
vi.hoisted(() => {
  process.env.PROJECT_CACHE_TTL_SECONDS = '0';
});

const server = useLocalServer();
let api: ApiClient;
let ownerId: string;
let slug: string;
const limits = { count: 5, sum: 10 };
const featureOf: Record<'count' | 'sum', number> = { count: 0, sum: 0 };

beforeAll(async () => {
  const owner = await newOwner('consume-model');
  ownerId = owner.ownerId;
  api = server.client(owner.writeKey);
  slug = (await makeProject(api)).slug;
  for (const method of ['count', 'sum'] as const) {
    featureOf[method] = (
      await makeFeature(api, slug, { isCountable: true, usageCount: limits[method], eventAggregationMethod: method })
    ).id;
  }
  await makePlan(api, slug, {
    isFree: true,
    features: Object.values(featureOf).map((featureId) => ({ featureId })),
  });
});

type Method = 'count' | 'sum';
type Op =
  | { kind: 'consume'; via: number; customer: number; method: Method; id: number; amount: number }
  | { kind: 'burst'; via: number; customer: number; method: Method; size: number; amount: number }
  | { kind: 'events'; events: { customer: number; method: Method; id: number; value: number }[] };

const method = fc.constantFrom<Method>('count', 'sum');
const amount = fc.constantFrom(0.5, 1, 2.5, 3);
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    kind: fc.constant('consume' as const),
    via: fc.integer({ min: 0, max: 2 }),
    customer: fc.integer({ min: 0, max: 1 }),
    method,
    id: fc.integer({ min: 0, max: 15 }),
    amount,
  }),
  fc.record({
    kind: fc.constant('burst' as const),
    via: fc.integer({ min: 0, max: 2 }),
    customer: fc.integer({ min: 0, max: 1 }),
    method,
    size: fc.integer({ min: 2, max: 6 }),
    amount,
  }),
  fc.record({
    kind: fc.constant('events' as const),
    events: fc.array(
      fc.record({
        customer: fc.integer({ min: 0, max: 1 }),
        method,
        id: fc.integer({ min: 0, max: 15 }),
        value: fc.constantFrom(0.5, 1, 2),
      }),
      { minLength: 1, maxLength: 4 },
    ),
  }),
);

let run = 0;

test('consume and /events against the model', { timeout: 300_000 }, async () => {
  const instances = [createConsumer(), createConsumer()];
  await fc.assert(
    fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 20 }), async (ops) => {
      run++;
      const customerId = (c: number) => `r${run}-c${c}`;
      const eventId = (id: number | string) => `r${run}-e${id}`;
      const seen = new Set<string>();
      const usage = new Map<string, number>();
      const key = (c: number, m: Method) => `${c}/${m}`;
      const used = (c: number, m: Method) => usage.get(key(c, m)) ?? 0;
      const counts = (m: Method, a: number) => (m === 'count' ? 1 : a);

      const consumeVia = async (via: number, c: number, m: Method, id: string, a: number) => {
        const body = { eventId: id, ...(m === 'sum' ? { amount: a } : {}) };
        if (via === 0) {
          const response = await api.post(
            `/api/v1/projects/${slug}/customers/${customerId(c)}/entitlements/${featureOf[m]}/consume`,
            body,
          );
          expect(response.status, response.text).toBe(200);
          return response.body as ConsumeResultView;
        }
        const instance = instances[via - 1] as ReturnType<typeof createConsumer>;
        return instance.consume({ ownerId, slug }, customerId(c), featureOf[m], body, { cacheTtlMs: 0 });
      };

      for (const [step, o] of ops.entries()) {
        if (o.kind === 'consume') {
          const id = eventId(o.id);
          const a = counts(o.method, o.amount);
          const answer = await consumeVia(o.via, o.customer, o.method, id, o.amount);
          const fits = used(o.customer, o.method) + a <= limits[o.method];
          const allowed = seen.has(id) || fits;
          if (!seen.has(id) && fits) {
            seen.add(id);
            usage.set(key(o.customer, o.method), used(o.customer, o.method) + a);
          }
          expect(answer.allowed).toBe(allowed);
          expect(answer.entitlement.usage).toBe(used(o.customer, o.method));
        } else if (o.kind === 'burst') {
          const a = counts(o.method, o.amount);
          const answers = await Promise.all(
            Array.from({ length: o.size }, (_, i) =>
              consumeVia(o.via, o.customer, o.method, eventId(`b${step}-${i}`), o.amount),
            ),
          );
          const room = Math.floor((limits[o.method] - used(o.customer, o.method)) / a + 1e-9);
          const allowed = Math.max(0, Math.min(o.size, room));
          expect(answers.filter((answer) => answer.allowed)).toHaveLength(allowed);
          usage.set(key(o.customer, o.method), used(o.customer, o.method) + allowed * a);
        } else {
          let accepted = 0;
          for (const e of o.events) {
            const id = eventId(e.id);
            if (seen.has(id)) continue;
            seen.add(id);
            accepted++;
            usage.set(key(e.customer, e.method), used(e.customer, e.method) + counts(e.method, e.value));
          }
          const response = await api.post(`/api/v1/projects/${slug}/events`, {
            events: o.events.map((e) => ({
              eventId: eventId(e.id),
              customerId: customerId(e.customer),
              featureId: featureOf[e.method],
              value: e.value,
            })),
          });
          expect(response.status, response.text).toBe(200);
          expect(response.body).toEqual({ accepted, duplicates: o.events.length - accepted });
        }
      }
      for (const c of [0, 1]) {
        const response = await api.get(`/api/v1/projects/${slug}/customers/${customerId(c)}/entitlements`);
        for (const m of ['count', 'sum'] as const) {
          const entitlement = response.body.entitlements.find(
            (e: { featureId: number }) => e.featureId === featureOf[m],
          );
          expect(entitlement.usage).toBe(used(c, m));
        }
      }
    }),
    { numRuns: 15 },
  );
});
