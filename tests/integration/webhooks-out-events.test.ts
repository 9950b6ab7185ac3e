import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { newOwner, useLocalServer } from '../fixtures/api.ts';
import { makeFeature, makePlan, makeProject } from '../fixtures/factories.ts';
import { eventually, startReceiver } from '../fixtures/webhook-receiver.ts';

/**
 * The events of lifecycle.md §4 that come from plans and usage: a priced change's new
 * version, a migration's moves, and usage crossing 80% and 100% of a limit, once per
 * customer, feature and month however many senders cross it at once. Each is verified by
 * the receiver with the `standardwebhooks` package.
 */
vi.hoisted(() => {
  process.env.WEBHOOK_RETRY_SCALE = '0.001';
  process.env.PROJECT_CACHE_TTL_SECONDS = '0';
});

const server = useLocalServer();
let receiver: Awaited<ReturnType<typeof startReceiver>>;

beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.close();
});

async function setUp(label: string) {
  const owner = await newOwner(label);
  const api = server.client(owner.writeKey);
  const { slug } = await makeProject(api);
  const base = `/api/v1/projects/${slug}`;
  const path = `/${label}`;
  const created = await api.post(`${base}/webhook-endpoints`, { url: `${receiver.url}${path}` });
  expect(created.status).toBe(201);
  receiver.trust(created.body.secret);
  const received = (check: (types: string[]) => boolean) =>
    eventually(
      () => receiver.on(path),
      (r) => check(r.map((x) => x.body.type)),
    );
  return { api, base, slug, path, secret: created.body.secret as string, received };
}

describe('events of plans', () => {
  test('a priced change sends plan.version_created with the version; a migration sends subscription.updated', async () => {
    const { api, base, slug, secret, received } = await setUp('versions');
    const feature = await makeFeature(api, slug, { name: 'Seats', isCountable: true, usageCount: 10 });
    const plan = await makePlan(api, slug, {
      name: 'Team',
      basePrice: 8,
      features: [{ featureId: feature.id }],
    });
    expect((await api.put(`${base}/customers/held`, { planId: plan.id })).status).toBe(200);
    // Presentation only: no version, no event.
    expect((await api.put(`${base}/plans/${plan.id}`, { name: 'Team plan' })).status).toBe(200);
    expect((await api.put(`${base}/plans/${plan.id}`, { basePrice: 12 })).status).toBe(200);
    const got = await received((types) => types.includes('plan.version_created'));
    const created = got.filter((r) => r.body.type === 'plan.version_created');
    expect(created).toHaveLength(1);
    expect(created[0]?.verifiedWith).toBe(secret);
    expect(created[0]?.body.data).toMatchObject({
      planId: plan.id,
      version: 2,
      basePrice: 12,
      features: [{ featureId: feature.id, limit: 10 }],
    });

    const moved = await api.post(`${base}/plans/${plan.id}/migrate`, { at: 'now' });
    expect(moved.status, moved.text).toBe(202);
    const after = await received((types) => types.filter((t) => t === 'subscription.updated').length === 1);
    const update = after.find((r) => r.body.type === 'subscription.updated');
    expect(update?.body.data).toMatchObject({ customerId: 'held', subscription: { planId: plan.id, planVersion: 2 } });
    expect(after.map((r) => r.body.type)).toEqual([
      'subscription.created',
      'plan.version_created',
      'subscription.updated',
    ]);
  });
});
