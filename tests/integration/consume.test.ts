import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, test, vi } from 'vitest';
import { readConsumeState } from '#db/usage-consume.ts';
import { createConsumer } from '#domain/usage/consume.ts';
import { utcMonth } from '#domain/usage/record.ts';
import { type ApiClient, newOwner, useLocalServer } from '../fixtures/api.ts';
import { makeFeature, makePlan, makeProject } from '../fixtures/factories.ts';

/**
 * Check and consume in one call over real HTTP: allowed and recorded, or refused and nothing
 * recorded; exact under concurrency (also between separate instances, each with what it last
 * saw, as Lambda containers are); resends; /events and consume on the same aggregates. The
 * project cache is off so plan edits show at once.
 */
vi.hoisted(() => {
  process.env.PROJECT_CACHE_TTL_SECONDS = '0';
});

const server = useLocalServer();
let owner: Awaited<ReturnType<typeof newOwner>>;
let api: ApiClient;
let project: { slug: string; shareId: string; id: number };
let f: Record<'calls' | 'credits' | 'seats' | 'peak' | 'users' | 'level' | 'sso' | 'free', { id: number }>;
let plan: { id: number };

beforeAll(async () => {
  owner = await newOwner('consume');
  api = server.client(owner.writeKey);
  project = await makeProject(api);
  const countable = (name: string, eventAggregationMethod: string, usageCount: number, extra = {}) =>
    makeFeature(api, project.slug, { name, isCountable: true, usageCount, eventAggregationMethod, ...extra });
  f = {
    calls: await countable('Calls', 'count', 3),
    credits: await countable('Credits', 'sum', 10),
    seats: await countable('Seats', 'count', 25),
    peak: await countable('Peak', 'max', 10),
    users: await countable('Users', 'unique_count', 10),
    level: await countable('Level', 'latest', 10),
    sso: await makeFeature(api, project.slug, { name: 'SSO' }),
    free: await countable('Free calls', 'count', 1, { condition: 'Unlimited' }),
  };
  plan = await makePlan(api, project.slug, {
    name: 'Free',
    isFree: true,
    features: Object.values(f).map((feature) => ({ featureId: feature.id })),
  });
});

const uid = () => randomUUID().slice(0, 8);
const path = (customerId: string, featureId: number) =>
  `/api/v1/projects/${project.slug}/customers/${customerId}/entitlements/${featureId}/consume`;
const consume = (customerId: string, featureId: number, body: Record<string, unknown>, client = api) =>
  client.post(path(customerId, featureId), body);
const usage = async (customerId: string, featureId: number) => {
  const response = await api.get(`/api/v1/projects/${project.slug}/customers/${customerId}/entitlements/${featureId}`);
  expect(response.status, response.text).toBe(200);
  return response.body.usage as number;
};

describe('allowed and recorded, or refused and nothing recorded', () => {
  test('a count feature up to its limit and past it', async () => {
    const c = `c-${uid()}`;
    for (const n of [1, 2, 3]) {
      const response = await consume(c, f.calls.id, { eventId: `${c}-${n}` });
      expect(response.status, response.text).toBe(200);
      expect(response.body).toEqual({
        allowed: true,
        entitlement: expect.objectContaining({ featureId: f.calls.id, limit: 3, usage: n, remaining: 3 - n }),
      });
    }
    const refused = await consume(c, f.calls.id, { eventId: `${c}-4` });
    expect(refused.body).toEqual({
      allowed: false,
      entitlement: expect.objectContaining({ hasAccess: true, limit: 3, usage: 3, remaining: 0 }),
    });
    expect(await usage(c, f.calls.id)).toBe(3);
    // Refused, it remembers nothing: the event id is not counted.
    const state = await readConsumeState({
      project: { ownerId: owner.ownerId, slug: project.slug, shareId: project.shareId, projectId: project.id },
      customerId: c,
      feature: { featureId: f.calls.id, method: 'count' },
      month: utcMonth(Date.now()),
      eventId: `${c}-4`,
      at: Date.now(),
    });
    expect(state).toMatchObject({ usage: 3, counted: false });
  });

  test('a sum feature takes amounts while they fit, to the limit exactly', async () => {
    const c = `c-${uid()}`;
    expect((await consume(c, f.credits.id, { eventId: `${c}-a`, amount: 2.5 })).body.entitlement.usage).toBe(2.5);
    const tooMuch = await consume(c, f.credits.id, { eventId: `${c}-b`, amount: 7.6 });
    expect(tooMuch.body).toMatchObject({ allowed: false, entitlement: { usage: 2.5, remaining: 7.5 } });
    const exact = await consume(c, f.credits.id, { eventId: `${c}-c`, amount: 7.5 });
    expect(exact.body).toMatchObject({ allowed: true, entitlement: { usage: 10, remaining: 0 } });
    expect(await usage(c, f.credits.id)).toBe(10);
  });

  test('an unlimited feature is always allowed and recorded', async () => {
    const c = `c-${uid()}`;
    for (let n = 1; n <= 4; n++) {
      const response = await consume(c, f.free.id, { eventId: `${c}-${n}` });
      expect(response.body).toMatchObject({ allowed: true, entitlement: { limit: null, usage: n, remaining: null } });
    }
  });

  test('an unknown customer has the free plan; without access nothing is recorded', async () => {
    const other = await makeProject(api);
    const feature = await makeFeature(api, other.slug, { isCountable: true, usageCount: 5 });
    const unassigned = await makeFeature(api, other.slug, { isCountable: true, usageCount: 5 });
    const paid = await makePlan(api, other.slug, { features: [{ featureId: feature.id }] });
    const at = (slug: string, c: string, featureId: number, eventId: string) =>
      api.post(`/api/v1/projects/${slug}/customers/${c}/entitlements/${featureId}/consume`, { eventId });
    // No free plan: an unknown customer has nothing.
    const none = await at(other.slug, 'nobody', feature.id, 'e1');
    expect(none.body).toMatchObject({ allowed: false, entitlement: { hasAccess: false, limit: 0, usage: 0 } });
    // A granted plan without the feature: refused.
    await api.put(`/api/v1/projects/${other.slug}/customers/buyer`, { planId: paid.id });
    expect((await at(other.slug, 'buyer', unassigned.id, 'e2')).body.allowed).toBe(false);
    expect((await at(other.slug, 'buyer', feature.id, 'e3')).body.allowed).toBe(true);
    // The free plan of this project grants everything.
    expect((await consume(`new-${uid()}`, f.calls.id, { eventId: uid() })).body.allowed).toBe(true);
  });

  test('a plan change moves the limit at once', async () => {
    const c = `c-${uid()}`;
    for (const n of [1, 2, 3]) await consume(c, f.calls.id, { eventId: `${c}-${n}` });
    expect((await consume(c, f.calls.id, { eventId: `${c}-4` })).body.allowed).toBe(false);
    const bigger = await makePlan(api, project.slug, { features: [{ featureId: f.calls.id, multiplier: 2 }] });
    await api.put(`/api/v1/projects/${project.slug}/customers/${c}`, { planId: bigger.id });
    // The refused event id was remembered nowhere: sent again, it counts now.
    expect((await consume(c, f.calls.id, { eventId: `${c}-4` })).body).toMatchObject({
      allowed: true,
      entitlement: { limit: 6, usage: 4 },
    });
    await api.put(`/api/v1/projects/${project.slug}/customers/${c}`, { planId: plan.id });
    expect((await consume(c, f.calls.id, { eventId: `${c}-5` })).body).toMatchObject({
      allowed: false,
      entitlement: { limit: 3, usage: 4, remaining: 0 },
    });
  });
});

describe('exactly once', () => {
  test('a resent event id answers allowed again and records nothing, at the limit too', async () => {
    const c = `c-${uid()}`;
    for (const n of [1, 2, 3]) await consume(c, f.calls.id, { eventId: `${c}-${n}` });
    const again = await consume(c, f.calls.id, { eventId: `${c}-3` });
    expect(again.body).toMatchObject({ allowed: true, entitlement: { usage: 3, remaining: 0 } });
    expect(await usage(c, f.calls.id)).toBe(3);
  });

  test('an event id counted through /events is not counted again by consume, nor the reverse', async () => {
    const c = `c-${uid()}`;
    const sent = await api.post(`/api/v1/projects/${project.slug}/events`, {
      events: [{ eventId: `${c}-e`, customerId: c, featureId: f.credits.id, value: 4 }],
    });
    expect(sent.body).toEqual({ accepted: 1, duplicates: 0 });
    const viaConsume = await consume(c, f.credits.id, { eventId: `${c}-e`, amount: 4 });
    expect(viaConsume.body).toMatchObject({ allowed: true, entitlement: { usage: 4 } });
    await consume(c, f.credits.id, { eventId: `${c}-k`, amount: 1 });
    const viaEvents = await api.post(`/api/v1/projects/${project.slug}/events`, {
      events: [{ eventId: `${c}-k`, customerId: c, featureId: f.credits.id, value: 1 }],
    });
    expect(viaEvents.body).toEqual({ accepted: 0, duplicates: 1 });
    expect(await usage(c, f.credits.id)).toBe(5);
  });

  test('Idempotency-Key replays the first answer', async () => {
    const c = `c-${uid()}`;
    const options = { headers: { 'idempotency-key': `k-${c}` } };
    const first = await api.post(path(c, f.calls.id), { eventId: `${c}-1` }, options);
    const replay = await api.post(path(c, f.calls.id), { eventId: `${c}-1` }, options);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.text).toBe(first.text);
    expect(await usage(c, f.calls.id)).toBe(1);
  });
});

describe('exact under concurrency', () => {
  test('50 concurrent consumers over HTTP against a limit of 25: exactly 25 allowed and recorded', async () => {
    const c = `c-${uid()}`;
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) => consume(c, f.seats.id, { eventId: `${c}-${i}` })),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(50).fill(200));
    expect(answers.filter((a) => a.body.allowed)).toHaveLength(25);
    expect(await usage(c, f.seats.id)).toBe(25);
  });

  test('50 consumers spread over 10 instances, each with its own view, meet in DynamoDB: exactly 25', async () => {
    const c = `c-${uid()}`;
    const instances = Array.from({ length: 10 }, () => createConsumer());
    const key = { ownerId: owner.ownerId, slug: project.slug };
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        (instances[i % 10] as ReturnType<typeof createConsumer>).consume(
          key,
          c,
          f.seats.id,
          { eventId: `${c}-${i}` },
          { cacheTtlMs: 0 },
        ),
      ),
    );
    const allowed = answers.filter((a) => a.allowed);
    expect(allowed).toHaveLength(25);
    // Each allowed answer shows the usage after its own commit (and any commit before its read).
    for (const answer of allowed) expect(answer.entitlement.usage).toBeGreaterThanOrEqual(1);
    for (const answer of allowed) expect(answer.entitlement.usage).toBeLessThanOrEqual(25);
    expect(await usage(c, f.seats.id)).toBe(25);
    // Instances that saw an older usage refuse only after reading the stored one.
    expect(answers.filter((a) => !a.allowed).every((a) => a.entitlement.usage === 25)).toBe(true);
  });

  test('consume racing /events batches: consume never takes the sum past the limit', async () => {
    const c = `c-${uid()}`;
    const limit = 10;
    let eventTotal = 0;
    const batches = Array.from({ length: 4 }, (_, b) => {
      eventTotal += 0.5;
      return api.post(`/api/v1/projects/${project.slug}/events`, {
        events: [{ eventId: `${c}-ev-${b}`, customerId: c, featureId: f.credits.id, value: 0.5 }],
      });
    });
    const consumes = Array.from({ length: 12 }, (_, i) =>
      consume(c, f.credits.id, { eventId: `${c}-co-${i}`, amount: 1 }),
    );
    const [events, answers] = await Promise.all([Promise.all(batches), Promise.all(consumes)]);
    expect(events.every((e) => e.body.accepted === 1)).toBe(true);
    const allowed = answers.filter((a) => a.body.allowed);
    for (const answer of allowed) expect(answer.body.entitlement.usage).toBeLessThanOrEqual(limit);
    expect(await usage(c, f.credits.id)).toBe(eventTotal + allowed.length);
    // 2 of the 10 went to the events; consume took what was left whatever the order.
    expect(allowed.length).toBeGreaterThanOrEqual(8);
  });
});

describe('months', () => {
  test('the limit is checked in the UTC month of the timestamp', async () => {
    const c = `c-${uid()}`;
    const now = new Date();
    const lastMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1) - 1).toISOString();
    for (const n of [1, 2, 3]) {
      const response = await consume(c, f.calls.id, { eventId: `${c}-${n}`, timestamp: lastMonth });
      expect(response.body.entitlement.resetsAt).toBe(
        new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)).toISOString(),
      );
    }
    expect((await consume(c, f.calls.id, { eventId: `${c}-4`, timestamp: lastMonth })).body.allowed).toBe(false);
    // This month is another aggregate.
    expect((await consume(c, f.calls.id, { eventId: `${c}-5` })).body).toMatchObject({
      allowed: true,
      entitlement: { usage: 1 },
    });
    expect(await usage(c, f.calls.id)).toBe(1);
  });
});

describe('bad input', () => {
  test.each([
    [{ eventId: 'e', amount: 0 }, 'amount'],
    [{ eventId: 'e', amount: -1 }, 'amount'],
    [{ eventId: 'e', amount: 1e13 }, 'amount'],
    [{ eventId: 'e', amount: 'NaN' }, 'amount'],
    [{ amount: 1 }, 'eventId'],
    [{ eventId: '' }, 'eventId'],
    [{ eventId: 'e', amout: 1 }, 'amout'],
    [{ eventId: 'e', timestamp: '2020-01-01T00:00:00Z' }, 'timestamp'],
    [{ eventId: 'e', timestamp: 'soon' }, 'timestamp'],
  ])('%j is a 400 naming %s', async (body, field) => {
    const response = await consume(`c-${uid()}`, f.credits.id, body);
    expect(response.status, response.text).toBe(400);
    expect(response.body.error.code).toBe('validation_error');
    expect(response.body.error.details.map((d: { path: string }) => d.path)).toContain(field);
  });

  test('features that cannot be consumed, and unknown ones', async () => {
    const c = `c-${uid()}`;
    const two = await consume(c, f.calls.id, { eventId: 'e', amount: 2 });
    expect(two.status).toBe(400);
    expect(two.body.error.message).toBe(
      `Invalid request: amount must be 1, since feature ${f.calls.id} counts events.`,
    );
    for (const [feature, method] of [
      [f.peak, 'max'],
      [f.users, 'unique_count'],
      [f.level, 'latest'],
    ] as const) {
      const response = await consume(c, feature.id, { eventId: 'e' });
      expect(response.status).toBe(400);
      expect(response.body.error.message).toBe(
        `Invalid request: featureId names feature ${feature.id}, which aggregates by ${method}: only count and sum features can be consumed.`,
      );
    }
    const flag = await consume(c, f.sso.id, { eventId: 'e' });
    expect(flag.status).toBe(400);
    expect(flag.body.error.message).toBe(
      `Invalid request: featureId names feature ${f.sso.id}, which is not countable: it takes no usage.`,
    );
    const empty = await consume(c, f.credits.id, { eventId: '' });
    expect(empty.status).toBe(400);
    expect(empty.body.error.details).toContainEqual({ path: 'eventId', message: 'must be at least 1 character' });
    expect((await consume(c, 999_999_999, { eventId: 'e' })).status).toBe(404);
    expect((await consume('bad id', f.calls.id, { eventId: 'e' })).status).toBe(400);
    expect(await usage(c, f.calls.id)).toBe(0);
  });

  test('keys and tenancy as everywhere', async () => {
    const c = `c-${uid()}`;
    expect((await consume(c, f.calls.id, { eventId: 'e' }, api.withKey(null))).status).toBe(401);
    expect((await consume(c, f.calls.id, { eventId: 'e' }, api.withKey(owner.readKey))).status).toBe(403);
    const stranger = server.client((await newOwner('stranger')).writeKey);
    expect((await consume(c, f.calls.id, { eventId: 'e' }, stranger)).status).toBe(404);
    expect(await usage(c, f.calls.id)).toBe(0);
  });
});

describe('aggregates that stay true', () => {
  test('a feature switched to another method starts that method afresh, and finds its old one again', async () => {
    const c = `c-${uid()}`;
    const feature = await makeFeature(api, project.slug, {
      isCountable: true,
      usageCount: 100,
      eventAggregationMethod: 'sum',
    });
    await makePlan(api, project.slug, { features: [{ featureId: feature.id }] }).then((p) =>
      api.put(`/api/v1/projects/${project.slug}/customers/${c}`, { planId: p.id }),
    );
    const send = (eventId: string, value?: number) =>
      api.post(`/api/v1/projects/${project.slug}/events`, {
        events: [{ eventId: `${c}-${eventId}`, customerId: c, featureId: feature.id, value }],
      });
    await send('a', 5);
    await send('b', 7);
    expect(await usage(c, feature.id)).toBe(12);
    const switchTo = (eventAggregationMethod: string) =>
      api.put(`/api/v1/projects/${project.slug}/features/${feature.id}`, { eventAggregationMethod });
    expect((await switchTo('count')).status).toBe(200);
    await send('c');
    expect(await usage(c, feature.id)).toBe(1);
    expect((await switchTo('max')).status).toBe(200);
    await send('d', 3);
    expect(await usage(c, feature.id)).toBe(3);
    expect((await switchTo('sum')).status).toBe(200);
    expect(await usage(c, feature.id)).toBe(12);
  });

  test('a negative value on a sum feature is refused: usage only grows', async () => {
    const response = await api.post(`/api/v1/projects/${project.slug}/events`, {
      events: [{ eventId: uid(), customerId: 'x', featureId: f.credits.id, value: -50 }],
    });
    expect(response.status).toBe(400);
    expect(response.body.error.details).toEqual([
      { path: 'events[0].value', message: expect.stringContaining('must be 0 or more') },
    ]);
  });
});
