import { describe, expect, test, vi } from 'vitest';
import { rawTable } from '#db/service.ts';
import { getDelivery } from '#db/webhook-deliveries.ts';
import { settleDue } from '#domain/customers/settle.ts';
import { createConsumer } from '#domain/usage/consume.ts';
import { useLocalServer } from '../fixtures/api.ts';
import { makeFeature, makePlan } from '../fixtures/factories.ts';
import { eventually, useWebhookReceiver } from '../fixtures/webhook-receiver.ts';

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
const hooks = useWebhookReceiver(server);

async function setUp(label: string) {
  const project = await hooks.project(label);
  const path = `/${label}`;
  const { id: endpointId, secret } = await project.endpoint(path);
  const received = (check: (types: string[]) => boolean) =>
    eventually(
      () => hooks.receiver.on(path),
      (r) => check(r.map((x) => x.body.type)),
    );
  return { ...project, path, endpointId, secret, received };
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

describe('changes that take effect at period end', () => {
  const soon = (ms: number) => new Date(Date.now() + ms).toISOString();
  const updatesOf = (path: string, customerId: string) =>
    hooks.receiver
      .on(path)
      .filter((r) => r.body.type === 'subscription.updated' && r.body.data.customerId === customerId);

  test('a manual change at period end sends subscription.updated when the period ends, once, whoever writes it first', async () => {
    const { api, base, slug, path, projectId, ownerId } = await setUp('period-end');
    const big = await makePlan(api, slug, { name: 'Big', basePrice: 50 });
    const small = await makePlan(api, slug, { name: 'Small', basePrice: 5 });
    const end = soon(2_500);
    expect((await api.put(`${base}/customers/lazy`, { planId: big.id, currentPeriodEnd: end })).status).toBe(200);
    const changed = await api.post(`${base}/customers/lazy/subscription`, { planId: small.id, at: 'period_end' });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body.subscription).toMatchObject({ planId: big.id, pendingPlanId: small.id });
    // The change's own write sends what it changed at once (the interval it sets); the plan waits.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const before = updatesOf(path, 'lazy');
    expect(before.every((r) => r.body.data.subscription.planId === big.id)).toBe(true);
    // At the period's end the service's own wake-up, readers and other writers of the customer
    // all meet it at once: one of them writes it, with the one event.
    await new Promise((resolve) => setTimeout(resolve, Date.parse(end) - Date.now() + 5));
    const ref = { projectId, ownerId, slug, customerId: 'lazy' };
    await Promise.all([
      ...Array.from({ length: 4 }, () => settleDue(ref)),
      api.get(`${base}/customers/lazy`),
      api.get(`${base}/customers/lazy/entitlements`),
    ]);
    const [update] = (
      await eventually(
        () => updatesOf(path, 'lazy'),
        (r) => r.length > before.length,
      )
    ).slice(before.length);
    expect(update?.body.data.subscription).toMatchObject({
      planId: small.id,
      pendingPlanId: null,
      pendingVersion: null,
    });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(updatesOf(path, 'lazy')).toHaveLength(before.length + 1);
    expect((await api.get(`${base}/customers/lazy`)).body.subscription.planId).toBe(small.id);
  });

  test('a manual cancel at period end sends subscription.canceled when the period ends, once; a resume before sends none', async () => {
    const { api, base, slug, path } = await setUp('cancel-period-end');
    const plan = await makePlan(api, slug, { name: 'Team', basePrice: 8 });
    const end = soon(2_500);
    const eventsOf = (customerId: string) =>
      hooks.receiver.on(path).filter((r) => r.body.data.customerId === customerId);
    for (const id of ['ends', 'stays']) {
      expect((await api.put(`${base}/customers/${id}`, { planId: plan.id, currentPeriodEnd: end })).status).toBe(200);
      const cancel = await api.post(`${base}/customers/${id}/subscription/cancel`, { atPeriodEnd: true });
      expect(cancel.body.subscription).toMatchObject({ status: 'active', cancelAtPeriodEnd: true });
    }
    expect((await api.post(`${base}/customers/stays/subscription/resume`)).status).toBe(200);
    // Nothing reads or writes these customers now: the wake-up alone ends the one still set to cancel.
    const got = await eventually(
      () => eventsOf('ends'),
      (r) => r.some((x) => x.body.type === 'subscription.canceled'),
    );
    expect(Date.now()).toBeGreaterThanOrEqual(Date.parse(end));
    const canceled = got.filter((r) => r.body.type === 'subscription.canceled');
    expect(canceled).toHaveLength(1);
    expect(canceled[0]?.verifiedWith).toBeDefined();
    expect(canceled[0]?.body.data.subscription).toMatchObject({ status: 'canceled', planId: plan.id });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(
      eventsOf('ends')
        .map((r) => r.body.type)
        .sort(),
    ).toEqual(['subscription.canceled', 'subscription.created', 'subscription.updated']);
    expect(
      eventsOf('stays')
        .map((r) => r.body.type)
        .sort(),
    ).toEqual(['subscription.created', 'subscription.updated', 'subscription.updated']);
    expect((await api.get(`${base}/customers/ends`)).body.subscription.status).toBe('canceled');
    expect((await api.get(`${base}/customers/stays`)).body.subscription).toMatchObject({
      status: 'active',
      cancelAtPeriodEnd: false,
    });
  });

  test('a period-end migration sends subscription.updated with the new version when the period ends', async () => {
    const { api, base, slug, path } = await setUp('migrate-period-end');
    const plan = await makePlan(api, slug, { name: 'Team', basePrice: 8 });
    const end = soon(2_500);
    expect((await api.put(`${base}/customers/held`, { planId: plan.id, currentPeriodEnd: end })).status).toBe(200);
    expect((await api.put(`${base}/plans/${plan.id}`, { basePrice: 12 })).status).toBe(200);
    const moved = await api.post(`${base}/plans/${plan.id}/migrate`, { at: 'period_end' });
    expect(moved.status, moved.text).toBe(202);
    expect((await api.get(`${base}/customers/held`)).body.subscription).toMatchObject({
      planVersion: 1,
      pendingVersion: 2,
    });
    expect(updatesOf(path, 'held')).toEqual([]);
    const [update] = await eventually(
      () => updatesOf(path, 'held'),
      (r) => r.length >= 1,
    );
    expect(Date.now()).toBeGreaterThanOrEqual(Date.parse(end));
    expect(update?.body.data.subscription).toMatchObject({ planId: plan.id, planVersion: 2, pendingVersion: null });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(updatesOf(path, 'held')).toHaveLength(1);
  });
});

describe('events of usage', () => {
  async function limited(label: string, method: 'count' | 'sum' | 'max' | 'latest', limit: number) {
    const context = await setUp(label);
    const { api, base, slug } = context;
    const feature = await makeFeature(api, slug, {
      name: 'Calls',
      isCountable: true,
      usageCount: limit,
      eventAggregationMethod: method,
    });
    const plan = await makePlan(api, slug, { name: 'Metered', features: [{ featureId: feature.id }] });
    expect((await api.put(`${base}/customers/ada`, { planId: plan.id })).status).toBe(200);
    const consume = (eventId: string, amount?: number) =>
      api.post(`${base}/customers/ada/entitlements/${feature.id}/consume`, { eventId, amount });
    return { ...context, featureId: feature.id as number, consume };
  }

  test('20 concurrent consumes that cross 80% and 100%: one usage.limit_approaching, one usage.limit_reached', async () => {
    const { consume, received, path, featureId } = await limited('consume-race', 'count', 10);
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => consume(`race-${i}`)));
    expect(answers.every((a) => a.status === 200)).toBe(true);
    expect(answers.filter((a) => a.body.allowed)).toHaveLength(10);
    await received((types) => types.includes('usage.limit_reached') && types.includes('usage.limit_approaching'));
    // More consumes (refused at the limit) send nothing more.
    await consume('after-the-limit');
    await new Promise((resolve) => setTimeout(resolve, 500));
    const usage = hooks.receiver.on(path).filter((r) => r.body.type.startsWith('usage.'));
    expect(usage.map((r) => r.body.type).sort()).toEqual(['usage.limit_approaching', 'usage.limit_reached']);
    const month = new Date().toISOString().slice(0, 7);
    const approaching = usage.find((r) => r.body.type === 'usage.limit_approaching');
    expect(approaching?.body.data).toEqual({ customerId: 'ada', featureId, usage: 8, limit: 10, month });
    expect(usage.find((r) => r.body.type === 'usage.limit_reached')?.body.data).toMatchObject({ usage: 10 });
  });

  test('20 consumes over 10 instances, each with its own view of the usage, meet in DynamoDB: one event each', async () => {
    const { slug, ownerId, received, path, featureId } = await limited('consume-instances', 'sum', 40);
    const instances = Array.from({ length: 10 }, () => createConsumer());
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        (instances[i % 10] as ReturnType<typeof createConsumer>).consume(
          { ownerId, slug },
          'ada',
          featureId,
          { eventId: `spread-${i}`, amount: 3 },
          { cacheTtlMs: 0 },
        ),
      ),
    );
    expect(answers.filter((a) => a.allowed)).toHaveLength(13);
    await received((types) => types.includes('usage.limit_reached') || types.includes('usage.limit_approaching'));
    await new Promise((resolve) => setTimeout(resolve, 500));
    const usage = hooks.receiver.on(path).filter((r) => r.body.type.startsWith('usage.'));
    // 13 × 3 = 39 of 40: 80% (32) is crossed once, with the usage right after the write that crossed it.
    expect(usage.map((r) => r.body.type)).toEqual(['usage.limit_approaching']);
    expect(usage[0]?.body.data.usage).toBe(33);
  });

  test('20 concurrent /events batches that cross 80% and 100%: one event each, with the usage after its write', async () => {
    const { api, base, received, path, featureId } = await limited('events-race', 'count', 20);
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        api.post(`${base}/events`, {
          events: [
            { eventId: `a-${i}`, customerId: 'ada', featureId },
            { eventId: `b-${i}`, customerId: 'ada', featureId },
          ],
        }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(200));
    await received((types) => types.includes('usage.limit_reached') && types.includes('usage.limit_approaching'));
    await new Promise((resolve) => setTimeout(resolve, 500));
    const usage = hooks.receiver.on(path).filter((r) => r.body.type.startsWith('usage.'));
    // Two events a batch: the usage goes 14 → 16 (80%) and 18 → 20 (100%) in one batch each.
    expect(usage.map((r) => [r.body.type, r.body.data.usage]).sort()).toEqual([
      ['usage.limit_approaching', 16],
      ['usage.limit_reached', 20],
    ]);
    const entitlement = await api.get(`${base}/customers/ada/entitlements/${featureId}`);
    expect(entitlement.body.usage).toBe(40);
  });

  test("/events decide thresholds on the limit of the version a customer holds, not the plan's current one", async () => {
    const { api, base, received, path, featureId } = await limited('events-held', 'count', 10);
    // A raised limit is a priced change: ada keeps version 1 (limit 10), bob buys version 2 (100).
    expect((await api.put(`${base}/features/${featureId}`, { usageCount: 100 })).status).toBe(200);
    const planId = (await api.get(`${base}/customers/ada`)).body.subscription.planId;
    expect((await api.put(`${base}/customers/bob`, { planId })).status).toBe(200);
    const send = (customerId: string) =>
      api.post(`${base}/events`, {
        events: Array.from({ length: 8 }, (_, i) => ({ eventId: `${customerId}-${i}`, customerId, featureId })),
      });
    expect((await send('bob')).status).toBe(200);
    expect((await send('ada')).status).toBe(200);
    await received((types) => types.includes('usage.limit_approaching'));
    await new Promise((resolve) => setTimeout(resolve, 500));
    const usage = hooks.receiver.on(path).filter((r) => r.body.type.startsWith('usage.'));
    expect(usage.map((r) => [r.body.type, r.body.data.customerId, r.body.data.usage, r.body.data.limit])).toEqual([
      ['usage.limit_approaching', 'ada', 8, 10],
    ]);
  });

  test('a max feature: 20 concurrent batches raising it past 80% and 100% send one event each', async () => {
    const { api, base, received, path, featureId } = await limited('events-max', 'max', 10);
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        api.post(`${base}/events`, { events: [{ eventId: `m-${i}`, customerId: 'ada', featureId, value: i + 1 }] }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(200));
    await received((types) => types.includes('usage.limit_reached') && types.includes('usage.limit_approaching'));
    await new Promise((resolve) => setTimeout(resolve, 500));
    const usage = hooks.receiver.on(path).filter((r) => r.body.type.startsWith('usage.'));
    expect(usage.map((r) => r.body.type).sort()).toEqual(['usage.limit_approaching', 'usage.limit_reached']);
    for (const event of usage) expect(event.body.data.usage).toBeGreaterThanOrEqual(8);
    expect((await api.get(`${base}/customers/ada/entitlements/${featureId}`)).body.usage).toBe(20);
  });

  test('a latest feature: the value reaching 80% and 100% sends each once a month, however it goes down and up again', async () => {
    const { api, base, received, path, featureId } = await limited('events-latest', 'latest', 10);
    const at = (second: number) => new Date(Date.now() - 60_000 + second * 1000).toISOString();
    const send = (eventId: string, value: number, second: number) =>
      api.post(`${base}/events`, { events: [{ eventId, customerId: 'ada', featureId, value, timestamp: at(second) }] });
    expect((await send('low', 5, 0)).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(hooks.receiver.on(path).filter((r) => r.body.type.startsWith('usage.'))).toEqual([]);
    // 20 senders at once, values 1 to 20: whichever leave the latest at or past 8 and 10.
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => send(`l-${i}`, i + 1, 1 + i)));
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(200));
    await received((types) => types.includes('usage.limit_reached') && types.includes('usage.limit_approaching'));
    // Down below 80%, then past both again: nothing more this month.
    expect((await send('down', 2, 30)).status).toBe(200);
    expect((await send('up', 12, 31)).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const usage = hooks.receiver.on(path).filter((r) => r.body.type.startsWith('usage.'));
    expect(usage.map((r) => r.body.type).sort()).toEqual(['usage.limit_approaching', 'usage.limit_reached']);
    const reached = usage.find((r) => r.body.type === 'usage.limit_reached');
    expect(reached?.body.data).toMatchObject({ customerId: 'ada', featureId, limit: 10 });
    expect(reached?.body.data.usage).toBeGreaterThanOrEqual(10);
    expect(usage.find((r) => r.body.type === 'usage.limit_approaching')?.body.data.usage).toBeGreaterThanOrEqual(8);
    expect((await api.get(`${base}/customers/ada/entitlements/${featureId}`)).body.usage).toBe(12);
  });

  /** Holds the TransactWriteItems whose input includes `marker` until released. */
  function holdTransactions(marker: string) {
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let paused = () => {};
    const reached = new Promise<void>((resolve) => {
      paused = resolve;
    });
    const { lowLevel } = rawTable();
    const name = `hold-${marker}`;
    lowLevel.middlewareStack.add(
      (next) => async (args) => {
        const input = args.input as { TransactItems?: unknown };
        if (input.TransactItems && JSON.stringify(input).includes(marker)) {
          paused();
          await gate;
        }
        return next(args);
      },
      { step: 'build', name },
    );
    return {
      reached,
      release,
      remove() {
        release();
        lowLevel.middlewareStack.remove(name);
      },
    };
  }

  const usageEventsOf = (path: string) =>
    hooks.receiver
      .on(path)
      .filter((r) => r.body.type.startsWith('usage.'))
      .map((r) => [r.body.type, r.body.data.usage, r.body.data.limit])
      .sort();

  /** ada's writes of the race's feature: a batch of 5 events, and a consume. */
  interface RaceWrites {
    batch(prefix: string): Promise<{ status: number; text: string }>;
    consume(eventId: string, amount: number): Promise<{ status: number; text: string; body: any }>;
  }

  /**
   * A write that read the limit before a plan change, written after one that read it after:
   * ada holds `from` (Free: no limit; Big: 100) when `stale` starts its writes, whose
   * transactions (their input includes `marker`) wait after their read; ada then moves to
   * Metered (limit 10) and `fresh` writes 5 on that limit, crossing nothing; then the stale
   * writes go on and `stale` settles. They take the usage 5 → 10 on the limit as it is now:
   * both thresholds, once each.
   */
  async function limitRace(
    label: string,
    race: {
      method: 'count' | 'sum';
      from: 'Free' | 'Big';
      marker: string;
      stale(writes: RaceWrites): Promise<void>;
      fresh(writes: RaceWrites): Promise<void>;
    },
  ) {
    const { api, base, slug, path, received } = await setUp(label);
    const feature = await makeFeature(api, slug, {
      name: 'Tokens',
      isCountable: true,
      usageCount: 10,
      eventAggregationMethod: race.method,
    });
    const from = await makePlan(api, slug, {
      name: race.from,
      ...(race.from === 'Big' ? { features: [{ featureId: feature.id, multiplier: 10 }] } : {}),
    });
    const metered = await makePlan(api, slug, { name: 'Metered', features: [{ featureId: feature.id }] });
    expect((await api.put(`${base}/customers/ada`, { planId: from.id })).status).toBe(200);
    const writes: RaceWrites = {
      batch: (prefix) =>
        api.post(`${base}/events`, {
          events: Array.from({ length: 5 }, (_, i) => ({
            eventId: `${prefix}-${i}`,
            customerId: 'ada',
            featureId: feature.id,
            ...(race.method === 'sum' ? { value: 1 } : {}),
          })),
        }),
      consume: (eventId, amount) =>
        api.post(`${base}/customers/ada/entitlements/${feature.id}/consume`, { eventId, amount }),
    };
    const held = holdTransactions(race.marker);
    try {
      const stale = race.stale(writes);
      await held.reached;
      expect((await api.put(`${base}/customers/ada`, { planId: metered.id })).status).toBe(200);
      await race.fresh(writes);
      held.release();
      await stale;
    } finally {
      held.remove();
    }
    await received((types) => types.includes('usage.limit_reached') && types.includes('usage.limit_approaching'));
    expect(usageEventsOf(path)).toEqual([
      ['usage.limit_approaching', 10, 10],
      ['usage.limit_reached', 10, 10],
    ]);
    expect((await api.get(`${base}/customers/ada/entitlements/${feature.id}`)).body.usage).toBe(10);
  }

  test('a batch that read the limit before a plan change, written after a batch that read it after, decides again on the new limit', async () => {
    await limitRace('limit-race', {
      method: 'count',
      from: 'Free',
      marker: 'eventId_stale-',
      stale: async ({ batch }) => expect((await batch('stale')).status).toBe(200),
      fresh: async ({ batch }) => expect((await batch('fresh')).status).toBe(200),
    });
  });

  test('a batch that read the limit before a plan change, written after a consume that read it after, decides again on the new limit', async () => {
    await limitRace('limit-race-consume', {
      method: 'sum',
      from: 'Free',
      marker: 'eventId_stale-',
      stale: async ({ batch }) => expect((await batch('stale')).status).toBe(200),
      fresh: async ({ consume }) => {
        const fresh = await consume('fresh', 5);
        expect(fresh.body.allowed, fresh.text).toBe(true);
      },
    });
  });

  test('a consume that read the limit before a plan change, written after a batch that read it after, decides (and checks) on the new limit', async () => {
    await limitRace('limit-race-consume-behind', {
      method: 'sum',
      from: 'Big',
      marker: 'stale-consume',
      // 5 → 10 on the limit as it is now: allowed; 6 more would pass it.
      stale: async ({ consume }) => {
        const answers = await Promise.all([consume('stale-consume', 5), consume('stale-consume-over', 6)]);
        expect(answers.map((a) => [a.status, a.body.allowed])).toEqual([
          [200, true],
          [200, false],
        ]);
      },
      fresh: async ({ batch }) => {
        const fresh = await batch('fresh');
        expect(fresh.status, fresh.text).toBe(200);
      },
    });
  });

  test('one consume that passes both thresholds sends both; another month sends them again', async () => {
    const { api, base, featureId, received, path } = await limited('consume-both', 'sum', 100);
    const consume = (eventId: string, amount: number, timestamp?: string) =>
      api.post(`${base}/customers/ada/entitlements/${featureId}/consume`, { eventId, amount, timestamp });
    expect((await consume('small', 10)).body.allowed).toBe(true);
    expect((await consume('big', 90)).body.allowed).toBe(true);
    const usageEvents = (types: string[]) => types.filter((t) => t.startsWith('usage.'));
    const got = await received((types) => usageEvents(types).length === 2);
    const sent = (all: typeof got) =>
      all
        .filter((r) => r.body.type.startsWith('usage.'))
        .map((r) => [r.body.type, r.body.data.usage, r.body.data.month])
        .sort();
    const month = new Date().toISOString().slice(0, 7);
    expect(sent(got)).toEqual([
      ['usage.limit_approaching', 100, month],
      ['usage.limit_reached', 100, month],
    ]);
    // The month before (its last millisecond is always within the 35 days an event may look back).
    const now = new Date();
    const lastMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1) - 1);
    expect((await consume('last-month', 85, lastMonth.toISOString())).body.allowed).toBe(true);
    const again = await received((types) => usageEvents(types).length === 3);
    expect(sent(again).filter((row) => row[2] !== month)).toEqual([
      ['usage.limit_approaching', 85, lastMonth.toISOString().slice(0, 7)],
    ]);
    expect(hooks.receiver.on(path).every((r) => r.verifiedWith)).toBe(true);
  });
});

describe('cancellation and tenancy', () => {
  test("a plan change sends subscription.updated, a cancel subscription.canceled only; one project's changes never reach another's endpoints", async () => {
    const first = await setUp('tenant-a');
    const second = await setUp('tenant-b');
    const plan = await makePlan(first.api, first.slug, { name: 'Pro' });
    expect((await first.api.put(`${first.base}/customers/shared-id`, { planId: plan.id })).status).toBe(200);
    const bigger = await makePlan(first.api, first.slug, { name: 'Bigger', basePrice: 99 });
    const changed = await first.api.post(`${first.base}/customers/shared-id/subscription`, { planId: bigger.id });
    expect(changed.status, changed.text).toBe(200);
    const canceled = await first.api.post(`${first.base}/customers/shared-id/subscription/cancel`, {
      atPeriodEnd: false,
    });
    expect(canceled.status, canceled.text).toBe(200);
    const got = await first.received((types) => types.includes('subscription.canceled'));
    expect(got.map((r) => r.body.type)).toEqual([
      'subscription.created',
      'subscription.updated',
      'subscription.canceled',
    ]);
    expect(got[1]?.body.data.subscription.planId).toBe(bigger.id);
    expect(got[2]?.body.data.subscription.status).toBe('canceled');
    // The other project's endpoint, on the same receiver, got nothing of it.
    const otherPlan = await makePlan(second.api, second.slug, { name: 'Pro' });
    expect((await second.api.put(`${second.base}/customers/shared-id`, { planId: otherPlan.id })).status).toBe(200);
    const theirs = await second.received((types) => types.length === 1);
    expect(theirs.map((r) => [r.body.type, r.verifiedWith])).toEqual([['subscription.created', second.secret]]);
    expect(hooks.receiver.on(first.path)).toHaveLength(3);
  });

  test('a delivery is kept 30 days: its TTL attribute is set 30 days ahead', async () => {
    const { api, base, slug, projectId, endpointId, received } = await setUp('retention');
    const plan = await makePlan(api, slug, { name: 'Pro' });
    await api.put(`${base}/customers/kept`, { planId: plan.id });
    const [event] = await received((types) => types.length === 1);
    const delivery = await getDelivery(projectId, endpointId, event?.id as string);
    const thirtyDays = Math.floor(Date.now() / 1000) + 30 * 86_400;
    expect(Math.abs((delivery?.expiresAt ?? 0) - thirtyDays)).toBeLessThan(120);
  });
});
