import { randomUUID } from 'node:crypto';
import { DynamoDBDocumentClient, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, test, vi } from 'vitest';
import { db } from '#db/service.ts';
import { customerPartition } from '#db/usage-item-keys.ts';
import { type ApiClient, newOwner, useLocalServer } from '../fixtures/api.ts';
import { makeFeature, makePlan, makeProject } from '../fixtures/factories.ts';
import { sweepsFinished } from '../fixtures/sweeps.ts';
import { itemsWithPkPrefix } from '../fixtures/table.ts';

/**
 * billing.md "Usage events" over real HTTP: validation (all or nothing), exactly once
 * (resent, cut short, 20 senders at once), aggregation per UTC month, usage in entitlements,
 * tenancy and deletes. The project cache is off so feature edits show at once.
 */
vi.hoisted(() => {
  process.env.PROJECT_CACHE_TTL_SECONDS = '0';
});

const server = useLocalServer();
let owner: Awaited<ReturnType<typeof newOwner>>;
let api: ApiClient;
let project: { slug: string; shareId: string; id: number };
let events: string;
let f: Record<'calls' | 'volume' | 'peak' | 'users' | 'level' | 'sso', { id: number }>;

beforeAll(async () => {
  owner = await newOwner('usage');
  api = server.client(owner.writeKey);
  project = await makeProject(api);
  events = `/api/v1/projects/${project.slug}/events`;
  const countable = (name: string, eventAggregationMethod: string, usageCount = 10) =>
    makeFeature(api, project.slug, { name, isCountable: true, usageCount, eventAggregationMethod });
  f = {
    calls: await countable('Calls', 'count'),
    volume: await countable('Volume', 'sum', 1000),
    peak: await countable('Peak', 'max'),
    users: await countable('Users', 'unique_count'),
    level: await countable('Level', 'latest'),
    sso: await makeFeature(api, project.slug, { name: 'SSO' }),
  };
  await makePlan(api, project.slug, {
    name: 'Free',
    isFree: true,
    features: Object.values(f).map((feature) => ({ featureId: feature.id })),
  });
});

const uid = () => randomUUID().slice(0, 8);
const send = (batch: unknown[], client = api) => client.post(events, { events: batch });

async function usageOf(customerId: string): Promise<Record<number, { usage: number; remaining: number | null }>> {
  const response = await api.get(`/api/v1/projects/${project.slug}/customers/${customerId}/entitlements`);
  expect(response.status, response.text).toBe(200);
  return Object.fromEntries(
    response.body.entitlements.map((e: { featureId: number; usage: number; remaining: number | null }) => [
      e.featureId,
      { usage: e.usage, remaining: e.remaining },
    ]),
  );
}

describe('POST …/events', () => {
  test('counts each kind of aggregate; entitlements carry usage, remaining, and allowed flips at the limit', async () => {
    const c = `cust-${uid()}`;
    const batch: Record<string, unknown>[] = [
      ...Array.from({ length: 9 }, (_, i) => ({ eventId: `${c}-call-${i}`, customerId: c, featureId: f.calls.id })),
      { eventId: `${c}-v1`, customerId: c, featureId: f.volume.id, value: 2.5 },
      { eventId: `${c}-v2`, customerId: c, featureId: f.volume.id, value: 7.5 },
      { eventId: `${c}-p1`, customerId: c, featureId: f.peak.id, value: 4 },
      { eventId: `${c}-p2`, customerId: c, featureId: f.peak.id, value: 9 },
      { eventId: `${c}-p3`, customerId: c, featureId: f.peak.id, value: -3 },
      { eventId: `${c}-u1`, customerId: c, featureId: f.users.id, property: 'ada' },
      { eventId: `${c}-u2`, customerId: c, featureId: f.users.id, property: 'bob' },
      { eventId: `${c}-u3`, customerId: c, featureId: f.users.id, property: 'ada' },
    ];
    const at = Date.now() - 60_000;
    batch.push(
      { eventId: `${c}-l1`, customerId: c, featureId: f.level.id, value: 1, timestamp: new Date(at).toISOString() },
      { eventId: `${c}-l2`, customerId: c, featureId: f.level.id, value: 2, timestamp: new Date(at).toISOString() },
      { eventId: `${c}-l3`, customerId: c, featureId: f.level.id, value: 3, timestamp: new Date(at - 1).toISOString() },
    );
    const response = await send(batch);
    expect(response.status, response.text).toBe(200);
    expect(response.body).toEqual({ accepted: batch.length, duplicates: 0 });
    const usage = await usageOf(c);
    expect(usage[f.calls.id]).toEqual({ usage: 9, remaining: 1 });
    expect(usage[f.volume.id]).toEqual({ usage: 10, remaining: 990 });
    expect(usage[f.peak.id]?.usage).toBe(9);
    expect(usage[f.users.id]?.usage).toBe(2);
    // Ties go to the later received: l2 over l1; l3 is older.
    expect(usage[f.level.id]?.usage).toBe(2);
    expect(usage[f.sso.id]).toEqual({ usage: 0, remaining: null });

    const allowed = (required?: number) =>
      api.get(
        `/api/v1/projects/${project.slug}/customers/${c}/entitlements/${f.calls.id}${required === undefined ? '' : `?required=${required}`}`,
      );
    expect((await allowed()).body.allowed).toBe(true);
    expect((await allowed(2)).body.allowed).toBe(false);
    expect((await send([{ eventId: `${c}-call-9`, customerId: c, featureId: f.calls.id }])).body.accepted).toBe(1);
    const last = await allowed();
    expect(last.body).toMatchObject({ usage: 10, remaining: 0, allowed: false });
    expect((await allowed(0)).body.allowed).toBe(true);
  });

  test('duplicates within a batch and across batches count once', async () => {
    const c = `dup-${uid()}`;
    const event = (i: number) => ({ eventId: `${c}-${i}`, customerId: c, featureId: f.volume.id, value: 10 });
    const first = await send([event(1), event(2), event(1), event(3), event(2)]);
    expect(first.body).toEqual({ accepted: 3, duplicates: 2 });
    const again = await send([event(3), event(4), event(1), event(4)]);
    expect(again.body).toEqual({ accepted: 1, duplicates: 3 });
    expect((await usageOf(c))[f.volume.id]?.usage).toBe(40);
  });

  test("sums stay within DynamoDB's 38 digits: a large sum plus a value with many decimals is no 5xx", async () => {
    const c = `digits-${uid()}`;
    const event = (i: number, value: number) => ({
      eventId: `${c}-${i}`,
      customerId: c,
      featureId: f.volume.id,
      value,
    });
    expect((await send([event(1, 1e15)])).status).toBe(200);
    // 1e15 + 1.23456789012345e-9 exactly is 39 digits; sums are kept to 9 decimal places.
    const small = await send([event(2, 1.23456789012345e-9)]);
    expect(small.status, small.text).toBe(200);
    const floats = await send([event(3, 0.1), event(4, 0.2)]);
    expect(floats.status, floats.text).toBe(200);
    expect((await usageOf(c))[f.volume.id]?.usage).toBe(1e15 + 0.300000001);
  });

  test('a batch cut short by a crash and resent counts every event exactly once', async () => {
    const c = `crash-${uid()}`;
    const batch = Array.from({ length: 600 }, (_, i) => ({
      eventId: `${c}-${i}`,
      customerId: `${c}-${i % 7}`,
      featureId: [f.calls.id, f.volume.id, f.users.id][i % 3] as number,
      value: 1,
      property: `p${i % 11}`,
    }));
    // The process "dies" at its third transaction: the first two are in, the rest never happened.
    const send0 = DynamoDBDocumentClient.prototype.send;
    let transactions = 0;
    const spy = vi.spyOn(DynamoDBDocumentClient.prototype, 'send').mockImplementation(function (
      this: DynamoDBDocumentClient,
      ...args: unknown[]
    ) {
      if (args[0] instanceof TransactWriteCommand && ++transactions >= 3) {
        return Promise.reject(new Error('crash'));
      }
      return (send0 as (...a: unknown[]) => Promise<unknown>).apply(this, args);
    } as typeof send0);
    const cut = await send(batch);
    spy.mockRestore();
    expect(cut.status).toBe(500);
    const resent = await send(batch);
    expect(resent.status, resent.text).toBe(200);
    expect(resent.body.accepted + resent.body.duplicates).toBe(600);
    expect(resent.body.duplicates).toBeGreaterThan(0);
    expect(resent.body.accepted).toBeLessThan(600);
    const third = await send(batch);
    expect(third.body).toEqual({ accepted: 0, duplicates: 600 });
    let calls = 0;
    let volume = 0;
    for (let k = 0; k < 7; k++) {
      const usage = await usageOf(`${c}-${k}`);
      calls += usage[f.calls.id]?.usage ?? 0;
      volume += usage[f.volume.id]?.usage ?? 0;
      // Each customer's unique properties: those of its events with i % 3 === 2.
      const expected = new Set(batch.filter((_, i) => i % 7 === k && i % 3 === 2).map((e) => e.property)).size;
      expect(usage[f.users.id]?.usage).toBe(expected);
    }
    expect(calls).toBe(200);
    expect(volume).toBe(200);
  });

  test('20 concurrent senders with overlapping batches: exact totals', { timeout: 60_000 }, async () => {
    const c = `conc-${uid()}`;
    const all = Array.from({ length: 400 }, (_, i) => i);
    const event = (i: number) => [
      { eventId: `${c}-n${i}`, customerId: c, featureId: f.calls.id },
      { eventId: `${c}-s${i}`, customerId: c, featureId: f.volume.id, value: i },
      { eventId: `${c}-m${i}`, customerId: c, featureId: f.peak.id, value: i },
      { eventId: `${c}-u${i}`, customerId: c, featureId: f.users.id, property: `user-${i % 37}` },
    ];
    // Sender k sends events [10k, 10k + 200): every event is in up to 20 batches.
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, k) => send(all.slice(k * 10, k * 10 + 200).flatMap(event))),
    );
    for (const response of responses) expect(response.status, response.text).toBe(200);
    const accepted = responses.reduce((sum, r) => sum + r.body.accepted, 0);
    expect(accepted).toBe(390 * 4);
    const usage = await usageOf(c);
    expect(usage[f.calls.id]?.usage).toBe(390);
    expect(usage[f.volume.id]?.usage).toBe((389 * 390) / 2);
    expect(usage[f.peak.id]?.usage).toBe(389);
    expect(usage[f.users.id]?.usage).toBe(37);
  });

  test('an event id is remembered as long as its timestamp can be sent again: 35 days past a timestamp ahead of the clock', async () => {
    const c = `ahead-${uid()}`;
    const at = Date.now() + 4 * 60_000;
    const response = await send([
      { eventId: `${c}-1`, customerId: c, featureId: f.calls.id, timestamp: new Date(at).toISOString() },
    ]);
    expect(response.body).toEqual({ accepted: 1, duplicates: 0 });
    const entries = (await itemsWithPkPrefix(customerPartition(project.id))).filter(
      (item) => item.__edb_e__ === 'usageevent' && item.eventId === `${c}-1`,
    );
    expect(entries).toHaveLength(1);
    // Resent just before its timestamp leaves the 35-day window, it must still be a duplicate.
    expect(entries[0]?.expiresAt).toBeGreaterThanOrEqual(Math.ceil(at / 1000) + 35 * 86_400);
  });

  test('months are UTC: 23:59:59.999 counts in the month before, 00:00 in the new one', async () => {
    const c = `month-${uid()}`;
    const now = new Date();
    const start = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1);
    const before = new Date(start - 1).toISOString();
    const after = new Date(start).toISOString();
    const response = await send([
      { eventId: `${c}-1`, customerId: c, featureId: f.calls.id, timestamp: before },
      { eventId: `${c}-2`, customerId: c, featureId: f.calls.id, timestamp: after },
      { eventId: `${c}-3`, customerId: c, featureId: f.calls.id, timestamp: after.replace('Z', '+00:00') },
      // The same instant as `before`, written in another offset.
      { eventId: `${c}-4`, customerId: c, featureId: f.calls.id, timestamp: toOffset(start - 1, -5) },
    ]);
    expect(response.body).toEqual({ accepted: 4, duplicates: 0 });
    expect((await usageOf(c))[f.calls.id]?.usage).toBe(2);
    const previous = before.slice(0, 7);
    const { data } = await db()
      .entities.usage.get({
        projectId: project.id,
        customerId: c,
        month: previous,
        featureId: f.calls.id,
        method: 'count',
      })
      .go({ consistent: true });
    expect(data?.amount).toBe(2);
  });
});

/** The instant `ms` written as local time at a whole-hour UTC offset, e.g. `…-05:00`. */
function toOffset(ms: number, hours: number): string {
  const local = new Date(ms + hours * 3_600_000).toISOString().slice(0, 23);
  const sign = hours < 0 ? '-' : '+';
  return `${local}${sign}${String(Math.abs(hours)).padStart(2, '0')}:00`;
}

describe('validation: all or nothing, naming each bad event by its index', () => {
  const expectRefused = async (batch: unknown[], paths: string[]) => {
    const response = await send(batch);
    expect(response.status, response.text).toBe(400);
    expect(response.body.error.code).toBe('validation_error');
    expect(response.body.error.details.map((d: { path: string }) => d.path)).toEqual(paths);
    return response;
  };

  test('unknown and non-countable features, missing value or property: 400 and nothing stored', async () => {
    const c = `bad-${uid()}`;
    const good = { eventId: `${c}-ok`, customerId: c, featureId: f.calls.id };
    const response = await expectRefused(
      [
        good,
        { eventId: `${c}-1`, customerId: c, featureId: 999_999 },
        { eventId: `${c}-2`, customerId: c, featureId: f.sso.id },
        { eventId: `${c}-3`, customerId: c, featureId: f.volume.id },
        { eventId: `${c}-4`, customerId: c, featureId: f.users.id, value: 1 },
        { eventId: `${c}-5`, customerId: c, featureId: f.level.id, value: 1 },
      ],
      ['events[1].featureId', 'events[2].featureId', 'events[3].value', 'events[4].property'],
    );
    expect(response.body.error.details[1].message).toMatch(/not countable/);
    expect((await usageOf(c))[f.calls.id]?.usage).toBe(0);
    // Nothing stored: the good event's id is not remembered either.
    expect((await send([good])).body).toEqual({ accepted: 1, duplicates: 0 });
  });

  test('timestamps more than 35 days back or 5 minutes ahead are refused', async () => {
    const c = `time-${uid()}`;
    const at = (ms: number) => new Date(Date.now() + ms).toISOString();
    await expectRefused(
      [
        { eventId: `${c}-1`, customerId: c, featureId: f.calls.id, timestamp: at(-35 * 86_400_000 - 60_000) },
        { eventId: `${c}-2`, customerId: c, featureId: f.calls.id, timestamp: at(6 * 60_000) },
        { eventId: `${c}-3`, customerId: c, featureId: f.calls.id, timestamp: at(-34 * 86_400_000) },
        { eventId: `${c}-4`, customerId: c, featureId: f.calls.id, timestamp: '2026-13-01T00:00:00Z' },
        { eventId: `${c}-5`, customerId: c, featureId: f.calls.id, timestamp: '2026-11-01T00:00:00' },
      ],
      ['events[3].timestamp', 'events[4].timestamp'],
    );
    await expectRefused(
      [
        { eventId: `${c}-1`, customerId: c, featureId: f.calls.id, timestamp: at(-35 * 86_400_000 - 60_000) },
        { eventId: `${c}-2`, customerId: c, featureId: f.calls.id, timestamp: at(6 * 60_000) },
        { eventId: `${c}-3`, customerId: c, featureId: f.calls.id, timestamp: at(4 * 60_000) },
      ],
      ['events[0].timestamp', 'events[1].timestamp'],
    );
  });

  test('batch size 1 to 1,000; field shapes', async () => {
    await expectRefused([], ['events']);
    const many = Array.from({ length: 1001 }, (_, i) => ({ eventId: `x${i}`, customerId: 'c', featureId: f.calls.id }));
    await expectRefused(many, ['events']);
    await expectRefused(
      [
        { eventId: '', customerId: 'c', featureId: f.calls.id },
        { eventId: 'x'.repeat(129), customerId: 'c', featureId: f.calls.id },
        { eventId: 'a', customerId: 'no spaces', featureId: f.calls.id },
        { eventId: 'b', customerId: 'c', featureId: f.volume.id, value: 'NaN' },
        { eventId: 'c', customerId: 'c', featureId: f.users.id, property: '' },
        { eventId: 'd', customerId: 'c', featureId: f.calls.id, extra: 1 },
        { eventId: '\ud800', customerId: 'c', featureId: f.calls.id },
        { eventId: 'e', customerId: 'c', featureId: f.volume.id, value: 1e300 },
      ],
      [
        'events[0].eventId',
        'events[1].eventId',
        'events[2].customerId',
        'events[3].value',
        'events[4].property',
        'events[5].extra',
        'events[6].eventId',
        'events[7].value',
      ],
    );
  });
});

describe('tenancy and deletes', () => {
  test("another owner's key cannot send to this project (404); a read key is 403", async () => {
    const other = await newOwner('usage-other');
    const batch = [{ eventId: 'e', customerId: 'c', featureId: f.calls.id }];
    expect((await send(batch, server.client(other.writeKey))).status).toBe(404);
    expect((await send(batch, server.client(owner.readKey))).status).toBe(403);
    expect((await send(batch, server.client())).status).toBe(401);
  });

  test('DELETE of a customer removes its usage, also of a customer known only by its events', async () => {
    const c = `del-${uid()}`;
    await send([{ eventId: `${c}-1`, customerId: c, featureId: f.users.id, property: 'x' }]);
    expect((await usageOf(c))[f.users.id]?.usage).toBe(1);
    const deleted = await api.delete(`/api/v1/projects/${project.slug}/customers/${c}`);
    expect(deleted.status, deleted.text).toBe(200);
    expect((await usageOf(c))[f.users.id]?.usage).toBe(0);
    // Its unique markers went too: the same property counts again.
    await send([{ eventId: `${c}-2`, customerId: c, featureId: f.users.id, property: 'x' }]);
    expect((await usageOf(c))[f.users.id]?.usage).toBe(1);
    expect((await api.delete(`/api/v1/projects/${project.slug}/customers/never-${c}`)).status).toBe(404);
  });

  test('DELETE of a project leaves no aggregate, marker or event id', async () => {
    const doomed = await makeProject(api);
    const feature = await makeFeature(api, doomed.slug, {
      isCountable: true,
      usageCount: 5,
      eventAggregationMethod: 'unique_count',
    });
    const batch = Array.from({ length: 300 }, (_, i) => ({
      eventId: `d-${i}`,
      customerId: `c${i % 5}`,
      featureId: feature.id,
      property: `p${i % 13}`,
    }));
    const response = await api.post(`/api/v1/projects/${doomed.slug}/events`, { events: batch });
    expect(response.body).toEqual({ accepted: 300, duplicates: 0 });
    const before = await itemsWithPkPrefix(customerPartition(doomed.id));
    expect(new Set(before.map((item) => item.__edb_e__))).toEqual(new Set(['usage', 'usageunique', 'usageevent']));
    expect((await api.delete(`/api/v1/projects/${doomed.slug}`)).status).toBe(200);
    await sweepsFinished(owner.ownerId);
    expect(await itemsWithPkPrefix(customerPartition(doomed.id))).toEqual([]);
  });
});
