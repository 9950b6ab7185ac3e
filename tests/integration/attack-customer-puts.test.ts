import { beforeAll, expect, test } from 'vitest';
import { type ApiClient, newOwner, useLocalServer } from '../fixtures/api.ts';
import { makePlan, makeProject } from '../fixtures/factories.ts';

/**
 * A grant (PUT of a customer) carries no If-Match: it must not fail because others write the
 * same customer at the same moment. The last one wins, every one answers 200.
 */
const server = useLocalServer();
let api: ApiClient;
let slug: string;
let plans: number[];

beforeAll(async () => {
  api = server.client((await newOwner('grants')).writeKey);
  slug = (await makeProject(api)).slug;
  plans = [(await makePlan(api, slug, { name: 'A' })).id, (await makePlan(api, slug, { name: 'B' })).id];
});

test('30 concurrent grants of one customer all answer 200, and one of them is stored', async () => {
  const path = `/api/v1/projects/${slug}/customers/contended`;
  const answers = await Promise.all(
    Array.from({ length: 30 }, (_, i) => api.put(path, { planId: plans[i % 2], seats: i + 1 })),
  );
  expect(answers.map((a) => (a.status === 200 ? 200 : `${a.status} ${a.text}`))).toEqual(Array(30).fill(200));
  const stored = (await api.get(path)).body.subscription;
  expect(answers.map((a) => a.body.subscription.seats)).toContain(stored.seats);
  expect(stored.planId).toBe(plans[(stored.seats - 1) % 2]);
});
