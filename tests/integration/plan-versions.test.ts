import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, test, vi } from 'vitest';
import { getCustomerItem } from '#db/customers.ts';
import { db } from '#db/service.ts';
import type { CustomerItem } from '#db/types.ts';
import { loadProject } from '#domain/projects/load.ts';
import { runMigration } from '#domain/versions/migrate.ts';
import { type ApiClient, newOwner, useLocalServer } from '../fixtures/api.ts';
import { makeFeature, makePlan, makeProject } from '../fixtures/factories.ts';
import { deliver, newWebhookSecret, stripeEvent, subscriptionObject } from '../fixtures/stripe-events.ts';

/**
 * lifecycle.md §1 end to end over real HTTP against DynamoDB Local: priced writes move the
 * version, customers keep what they hold, versions are listed with their customers, and a
 * migration previews and moves them (cut short and resent; racing other writes). The project
 * cache is off so that every read sees the plan as it is.
 */
const { fake } = await vi.hoisted(async () => {
  const { startFakeStripe } = await import('#dev/fake-stripe/index.ts');
  const started = await startFakeStripe();
  process.env.STRIPE_API_BASE = started.url;
  process.env.PROJECT_CACHE_TTL_SECONDS = '0';
  return { fake: started };
});

// No webhook delivery in the background: a migration's moves each write an outbox event, and no
// test here has an endpoint to deliver them to.
const server = useLocalServer({ webhooksOut: false });
let api: ApiClient;
let slug: string;
let ownerId: string;

beforeAll(async () => {
  const owner = await newOwner('versions');
  ownerId = owner.ownerId;
  api = server.client(owner.writeKey);
  const project = await makeProject(api, { annualDiscountEnabled: true, annualDiscount: 0.25 });
  slug = project.slug;
  return () => fake.close();
});

const entitlementsOf = async (customerId: string) => {
  const res = await api.get(`/api/v1/projects/${slug}/customers/${customerId}/entitlements`);
  expect(res.status).toBe(200);
  return res.body as {
    planId: number | null;
    entitlements: { featureId: number; hasAccess: boolean; limit: number | null; name: string }[];
  };
};
const grant = async (customerId: string, planId: number, body: Record<string, unknown> = {}) => {
  const res = await api.put(`/api/v1/projects/${slug}/customers/${customerId}`, { planId, ...body });
  expect(res.status, res.text).toBe(200);
  return res.body;
};
const planPath = (planId: number) => `/api/v1/projects/${slug}/plans/${planId}`;

describe('versions and grandfathering', () => {
  test("a feature's limit change and its delete move the version of each plan that has it; holders keep it", async () => {
    const rows = await makeFeature(api, slug, { name: 'Rows', isCountable: true, usageCount: 50 });
    const audit = await makeFeature(api, slug, { name: 'Audit', featureType: 'Limits' });
    const plan = await makePlan(api, slug, {
      name: 'Data',
      basePrice: 4,
      features: [{ featureId: rows.id }, { featureId: audit.id }],
    });
    const other = await makePlan(api, slug, { name: 'Other', basePrice: 1 });
    await grant('data-v1', plan.id);
    // A description is presentation: nothing moves.
    await api.put(`/api/v1/projects/${slug}/features/${rows.id}`, { description: 'rows stored' });
    const version = async (id: number) =>
      (await api.get(`/api/v1/projects/${slug}/plans`)).body.plans.find((p: any) => p.id === id).version;
    expect(await version(plan.id)).toBe(1);
    expect((await api.put(`/api/v1/projects/${slug}/features/${rows.id}`, { usageCount: 10 })).status).toBe(200);
    expect(await version(plan.id)).toBe(2);
    expect(await version(other.id)).toBe(1);
    await grant('data-v2', plan.id);
    expect((await api.delete(`/api/v1/projects/${slug}/features/${audit.id}`)).status).toBe(200);
    expect(await version(plan.id)).toBe(3);

    const v1 = await entitlementsOf('data-v1');
    expect(v1.entitlements.find((e) => e.featureId === rows.id)).toMatchObject({ hasAccess: true, limit: 50 });
    // The deleted feature stays, as the version has it, and its single read has access.
    expect(v1.entitlements.find((e) => e.featureId === audit.id)).toMatchObject({ hasAccess: true, name: 'Audit' });
    const single = await api.get(`/api/v1/projects/${slug}/customers/data-v2/entitlements/${audit.id}`);
    expect(single.status).toBe(200);
    expect(single.body).toMatchObject({ hasAccess: true, allowed: true });
    const v2 = await entitlementsOf('data-v2');
    expect(v2.entitlements.find((e) => e.featureId === rows.id)).toMatchObject({ limit: 10 });
    // Usage for a deleted feature is refused: it is no longer a feature of the project.
    const usage = await api.post(`/api/v1/projects/${slug}/events`, {
      events: [{ eventId: 'audit-1', customerId: 'data-v1', featureId: audit.id }],
    });
    expect(usage.status).toBeGreaterThanOrEqual(400);
  });

  test('each kind of priced change moves the version once; presentation moves nothing; holders keep theirs', async () => {
    const calls = await makeFeature(api, slug, { name: 'Calls', isCountable: true, usageCount: 100 });
    const sso = await makeFeature(api, slug, { name: 'SSO' });
    const plan = await makePlan(api, slug, {
      name: 'Pro',
      basePrice: 10,
      features: [
        { featureId: calls.id, multiplier: 2 },
        { featureId: sso.id, multiplier: 1 },
      ],
    });
    expect(
      (await api.get(`/api/v1/projects/${slug}/plans`)).body.plans.find((p: any) => p.id === plan.id).version,
    ).toBe(1);
    await grant('v1-customer', plan.id);

    // Presentation: no new version.
    const renamed = await api.put(planPath(plan.id), { name: 'Pro+', isPopular: true, description: 'x' });
    expect(renamed.body.version).toBe(1);
    // Price: version 2.
    expect((await api.put(planPath(plan.id), { basePrice: 20 })).body.version).toBe(2);
    await grant('v2-customer', plan.id);
    // Limit (multiplier): version 3.
    const multiplied = await api.put(`${planPath(plan.id)}/features/${calls.id}`, { multiplier: 5 });
    expect(multiplied.status).toBe(200);
    await grant('v3-customer', plan.id);
    // Feature removed from the plan: version 4.
    expect((await api.delete(`${planPath(plan.id)}/features?featureId=${sso.id}`)).status).toBe(200);
    // Feature added: version 5.
    const added = await api.post(`${planPath(plan.id)}/features`, { featureId: sso.id, multiplier: 3 });
    expect(added.status).toBe(200);
    const now = (await api.get(`/api/v1/projects/${slug}/plans`)).body.plans.find((p: any) => p.id === plan.id);
    expect(now.version).toBe(5);

    const limitOf = (view: Awaited<ReturnType<typeof entitlementsOf>>, featureId: number) =>
      view.entitlements.find((e) => e.featureId === featureId);
    const v1 = await entitlementsOf('v1-customer');
    expect(limitOf(v1, calls.id)).toMatchObject({ hasAccess: true, limit: 200 });
    expect(limitOf(v1, sso.id)).toMatchObject({ hasAccess: true, limit: null });
    const v3 = await entitlementsOf('v3-customer');
    expect(limitOf(v3, calls.id)).toMatchObject({ hasAccess: true, limit: 500 });
    const customer = await api.get(`/api/v1/projects/${slug}/customers/v2-customer`);
    expect(customer.body.subscription).toMatchObject({ planId: plan.id, planVersion: 2, pendingVersion: null });

    const versions = await api.get(`${planPath(plan.id)}/versions`);
    expect(versions.status).toBe(200);
    expect(versions.body.versions.map((v: any) => [v.version, v.basePrice, v.customers])).toEqual([
      [5, 20, 0],
      [4, 20, 0],
      [3, 20, 1],
      [2, 20, 1],
      [1, 10, 1],
    ]);
    expect(versions.body.versions[4].features).toEqual([
      { featureId: calls.id, name: 'Calls', multiplier: 2, limit: 200 },
      { featureId: sso.id, name: 'SSO', multiplier: 1, limit: null },
    ]);

    // The plan deleted: its holders keep the version they hold.
    expect((await api.delete(planPath(plan.id))).status).toBe(200);
    const after = await entitlementsOf('v1-customer');
    expect(after.planId).toBe(plan.id);
    expect(limitOf(after, calls.id)).toMatchObject({ hasAccess: true, limit: 200 });
    // A duplicate starts at version 1.
    const other = await makePlan(api, slug, { name: 'Base', basePrice: 5 });
    await api.put(planPath(other.id), { basePrice: 6 });
    const copy = await api.post(`${planPath(other.id)}/duplicate`, {});
    expect(copy.body.version).toBe(1);
  });
});

/** Monthly price as checkout charges it, computed independently of the service's code. */
const monthly = (base: number, seats: number, perUser: boolean, multiplier: number, interval: 'month' | 'year') => {
  const perMonth = perUser ? base * (1 + (seats - 1) * multiplier) : base;
  return interval === 'year' ? (perMonth * 12 * 0.75) / 12 : perMonth;
};

describe('a Stripe subscription sold before versions (no metadata.planVersion)', () => {
  test("holds the plan's current version when first stored and keeps it after, through later events; its yearly price previews by the month; canceled, it is counted nowhere", async () => {
    const shop = await makeProject(api, { annualDiscountEnabled: true, annualDiscount: 0.25 });
    const secret = newWebhookSecret();
    expect((await api.put(`/api/v1/projects/${shop.slug}`, { paymentWebhookSecret: secret })).status).toBe(200);
    const seats = await makeFeature(api, shop.slug, { name: 'Seats', isCountable: true, usageCount: 3 });
    const plan = await makePlan(api, shop.slug, { name: 'Legacy', basePrice: 10, features: [{ featureId: seats.id }] });
    const legacyPlan = `/api/v1/projects/${shop.slug}/plans/${plan.id}`;
    expect((await api.put(legacyPlan, { basePrice: 15 })).body.version).toBe(2);
    const subscription = (options: { id: string; status?: string }) =>
      subscriptionObject({ projectId: shop.id, planId: plan.id, customerId: 'legacy', interval: 'year', ...options });
    const visitor = server.client();
    const created = Math.floor(Date.now() / 1000);
    const first = stripeEvent('customer.subscription.created', subscription({ id: 'sub_legacy' }), { created });
    expect((await deliver(visitor, shop.shareId, first, secret)).body).toMatchObject({ outcome: 'applied' });
    const held = async () => (await api.get(`/api/v1/projects/${shop.slug}/customers/legacy`)).body.subscription;
    expect(await held()).toMatchObject({ planId: plan.id, planVersion: 2, pendingVersion: null, source: 'stripe' });

    // The plan moves on; a later event of the same subscription, still without the metadata, keeps 2.
    await api.put(`${legacyPlan}/features/${seats.id}`, { multiplier: 4 });
    const later = stripeEvent('customer.subscription.updated', subscription({ id: 'sub_legacy' }), {
      created: created + 5,
    });
    expect((await deliver(visitor, shop.shareId, later, secret)).body).toMatchObject({ outcome: 'applied' });
    expect(await held()).toMatchObject({ planVersion: 2 });
    const entitlements = await api.get(`/api/v1/projects/${shop.slug}/customers/legacy/entitlements`);
    expect(entitlements.body.entitlements.find((e: any) => e.featureId === seats.id)).toMatchObject({ limit: 3 });

    // A yearly subscription previews by the month, the annual discount spread over twelve.
    await api.put(legacyPlan, { basePrice: 20 });
    const preview = await api.post(`${legacyPlan}/migrate`, { dryRun: true });
    expect(preview.status, preview.text).toBe(200);
    expect(preview.body.customers).toEqual([
      {
        customerId: 'legacy',
        fromVersion: 2,
        toVersion: 4,
        monthlyBefore: monthly(15, 1, false, 0, 'year'),
        monthlyAfter: monthly(20, 1, false, 0, 'year'),
        lostFeatures: [],
        overLimit: [],
      },
    ]);

    // Counted while it grants access; canceled, it holds nothing and no migration finds it.
    const counts = async () =>
      (await api.get(`${legacyPlan}/versions`)).body.versions.map((v: any) => [v.version, v.customers]);
    expect(await counts()).toEqual([
      [4, 0],
      [3, 0],
      [2, 1],
      [1, 0],
    ]);
    const canceled = stripeEvent(
      'customer.subscription.deleted',
      subscription({ id: 'sub_legacy', status: 'canceled' }),
      { created: created + 10 },
    );
    expect((await deliver(visitor, shop.shareId, canceled, secret)).body).toMatchObject({ outcome: 'applied' });
    expect((await counts()).map(([, customers]: [number, number]) => customers)).toEqual([0, 0, 0, 0]);
    expect((await api.post(`${legacyPlan}/migrate`, { dryRun: true })).body.totals.customers).toBe(0);
  });
});

describe('an add of more features than one transaction takes', () => {
  test('moves the version once, and the version before it keeps exactly what it had', async () => {
    const first = await makeFeature(api, slug, { name: 'Wide0', isCountable: true, usageCount: 7 });
    const plan = await makePlan(api, slug, { name: 'Wide', basePrice: 5, features: [{ featureId: first.id }] });
    await grant('wide-v1', plan.id);
    const more = [];
    for (let i = 1; i <= 60; i += 10) {
      more.push(
        ...(await Promise.all(Array.from({ length: 10 }, (_, j) => makeFeature(api, slug, { name: `Wide${i + j}` })))),
      );
    }
    const added = await api.post(`${planPath(plan.id)}/features`, {
      features: more.map((f) => ({ featureId: f.id, multiplier: 1 })),
    });
    expect(added.status, added.text).toBe(200);
    expect(added.body.added).toBe(60);
    const versions = await api.get(`${planPath(plan.id)}/versions`);
    expect(versions.body.versions.map((v: any) => [v.version, v.customers])).toEqual([
      [2, 0],
      [1, 1],
    ]);
    await grant('wide-v2', plan.id);
    const granted = (view: Awaited<ReturnType<typeof entitlementsOf>>) =>
      view.entitlements.filter((e) => e.hasAccess).map((e) => e.featureId);
    expect(granted(await entitlementsOf('wide-v1'))).toEqual([first.id]);
    expect(granted(await entitlementsOf('wide-v2')).sort((a, b) => a - b)).toEqual(
      [first.id, ...more.map((f) => f.id)].sort((a, b) => a - b),
    );
  });
});

describe('consume against the held version', () => {
  const consume = (customerId: string, featureId: number, eventId: string) =>
    api.post(`/api/v1/projects/${slug}/customers/${customerId}/entitlements/${featureId}/consume`, { eventId });

  test('a v1 holder consumes against 10 after the limit is lowered to 5; a migrated customer gets 5', async () => {
    const calls = await makeFeature(api, slug, { name: 'Ccalls', isCountable: true, usageCount: 10 });
    const plan = await makePlan(api, slug, { name: 'Held', basePrice: 3, features: [{ featureId: calls.id }] });
    await grant('held-a', plan.id);
    await grant('held-b', plan.id);
    expect((await api.put(`/api/v1/projects/${slug}/features/${calls.id}`, { usageCount: 5 })).status).toBe(200);
    for (let i = 0; i < 10; i++) {
      const res = await consume('held-a', calls.id, `held-a-${i}`);
      expect(res.status, res.text).toBe(200);
      expect(res.body).toMatchObject({ allowed: true, entitlement: { limit: 10, usage: i + 1 } });
    }
    expect((await consume('held-a', calls.id, 'held-a-10')).body).toMatchObject({ allowed: false });

    // Seen on v1 before it moves: the consume after the move must not use the limit it saw.
    expect((await consume('held-b', calls.id, 'held-b-0')).body).toMatchObject({ entitlement: { limit: 10 } });
    const moved = await api.post(`${planPath(plan.id)}/migrate`, { fromVersions: [1], at: 'now' });
    expect(moved.status, moved.text).toBe(202);
    for (let i = 1; i < 5; i++) {
      expect((await consume('held-b', calls.id, `held-b-${i}`)).body).toMatchObject({
        allowed: true,
        entitlement: { limit: 5 },
      });
    }
    expect((await consume('held-b', calls.id, 'held-b-5')).body).toMatchObject({ allowed: false });
  });

  test('a feature removed from the plan in v2 stays consumable by the v1 holder, not by a v2 customer', async () => {
    const calls = await makeFeature(api, slug, { name: 'Rcalls', isCountable: true, usageCount: 3 });
    const plan = await makePlan(api, slug, { name: 'Removed', basePrice: 2, features: [{ featureId: calls.id }] });
    await grant('removed-v1', plan.id);
    expect((await api.delete(`${planPath(plan.id)}/features?featureId=${calls.id}`)).status).toBe(200);
    await grant('removed-v2', plan.id);
    expect((await consume('removed-v1', calls.id, 'r1')).body).toMatchObject({
      allowed: true,
      entitlement: { hasAccess: true, limit: 3, usage: 1 },
    });
    expect((await consume('removed-v2', calls.id, 'r2')).body).toMatchObject({
      allowed: false,
      entitlement: { hasAccess: false },
    });
  });

  test("a deleted countable feature stays in its holders' entitlements with its limit; events and consume for it are refused for everyone", async () => {
    const gone = await makeFeature(api, slug, { name: 'Exports', isCountable: true, usageCount: 4 });
    const plan = await makePlan(api, slug, { name: 'Deleting', basePrice: 2, features: [{ featureId: gone.id }] });
    await grant('deleting-v1', plan.id);
    expect((await consume('deleting-v1', gone.id, 'deleting-before')).body).toMatchObject({ allowed: true });
    expect((await api.delete(`/api/v1/projects/${slug}/features/${gone.id}`)).status).toBe(200);
    await grant('deleting-v2', plan.id);
    const held = (await entitlementsOf('deleting-v1')).entitlements.find((e) => e.featureId === gone.id);
    expect(held).toMatchObject({ hasAccess: true, name: 'Exports', limit: 4 });
    // lifecycle.md §1: it is no longer a feature of the project, so nothing more is metered.
    for (const customerId of ['deleting-v1', 'deleting-v2']) {
      const refused = await consume(customerId, gone.id, `deleting-${customerId}`);
      expect(refused.status, refused.text).toBe(404);
      const events = await api.post(`/api/v1/projects/${slug}/events`, {
        events: [{ eventId: `deleting-event-${customerId}`, customerId, featureId: gone.id }],
      });
      expect(events.status, events.text).toBe(400);
    }
  });
});

describe('migration', () => {
  test('dryRun answers each customer before and after, lost features and over-limit usage, and changes nothing', async () => {
    const calls = await makeFeature(api, slug, { name: 'Mcalls', isCountable: true, usageCount: 10 });
    const extra = await makeFeature(api, slug, { name: 'Extra' });
    const plan = await makePlan(api, slug, {
      name: 'Team',
      basePrice: 8,
      isPerUserPricing: true,
      perUserMultiplier: 0.5,
      features: [
        { featureId: calls.id, multiplier: 3 },
        { featureId: extra.id, multiplier: 1 },
      ],
    });
    await grant('team-a', plan.id, { seats: 3 });
    await grant('team-b', plan.id, { seats: 1 });
    const usage = await api.post(`/api/v1/projects/${slug}/events`, {
      events: Array.from({ length: 25 }, (_, i) => ({
        eventId: `team-a-${i}`,
        customerId: 'team-a',
        featureId: calls.id,
      })),
    });
    expect(usage.status).toBe(200);
    await api.put(planPath(plan.id), { basePrice: 12 });
    await api.put(`${planPath(plan.id)}/features/${calls.id}`, { multiplier: 2 });
    await api.delete(`${planPath(plan.id)}/features?featureId=${extra.id}`);

    const preview = await api.post(`${planPath(plan.id)}/migrate`, { dryRun: true });
    expect(preview.status, preview.text).toBe(200);
    const expected = [
      { customerId: 'team-a', seats: 3 },
      { customerId: 'team-b', seats: 1 },
    ].map(({ customerId, seats }) => ({
      customerId,
      fromVersion: 1,
      toVersion: 4,
      monthlyBefore: monthly(8, seats, true, 0.5, 'month'),
      monthlyAfter: monthly(12, seats, true, 0.5, 'month'),
      lostFeatures: [extra.id],
      overLimit: customerId === 'team-a' ? [{ featureId: calls.id, usage: 25, newLimit: 20 }] : [],
    }));
    expect(preview.body.customers).toEqual(expected);
    expect(preview.body.totals).toEqual({
      customers: 2,
      mrrBefore: expected.reduce((s, r) => s + r.monthlyBefore, 0),
      mrrAfter: expected.reduce((s, r) => s + r.monthlyAfter, 0),
    });
    const still = await api.get(`/api/v1/projects/${slug}/customers/team-a`);
    expect(still.body.subscription.planVersion).toBe(1);

    // Bad input: unknown versions are 404 naming them; equal from and to is 400.
    const unknown = await api.post(`${planPath(plan.id)}/migrate`, { fromVersions: [1, 9], toVersion: 12 });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.message).toContain('9, 12');
    const same = await api.post(`${planPath(plan.id)}/migrate`, { fromVersions: [2], toVersion: 2 });
    expect(same.status).toBe(400);
    const typo = await api.post(`${planPath(plan.id)}/migrate`, { dryrun: true });
    expect(typo.status).toBe(400);
    // A plan with no holders of the versions: zero customers.
    const empty = await makePlan(api, slug, { name: 'Empty', basePrice: 1 });
    const none = await api.post(`${planPath(empty.id)}/migrate`, { dryRun: true });
    expect(none.body).toEqual({ customers: [], totals: { customers: 0, mrrBefore: 0, mrrAfter: 0 } });

    // Rollback-ready: at now moves them; resent, nothing moves twice.
    const moved = await api.post(`${planPath(plan.id)}/migrate`, { at: 'now' });
    expect(moved.status).toBe(202);
    expect(moved.body).toEqual({ migrating: 2 });
    const again = await api.post(`${planPath(plan.id)}/migrate`, { at: 'now' });
    expect(again.body).toEqual({ migrating: 0 });
    const a = await entitlementsOf('team-a');
    expect(a.entitlements.find((e) => e.featureId === calls.id)?.limit).toBe(20);
    expect(a.entitlements.find((e) => e.featureId === extra.id)?.hasAccess).toBe(false);
    // A rollback to version 1.
    const back = await api.post(`${planPath(plan.id)}/migrate`, { fromVersions: [4], toVersion: 1, at: 'now' });
    expect(back.body).toEqual({ migrating: 2 });
    expect((await api.get(`/api/v1/projects/${slug}/customers/team-b`)).body.subscription.planVersion).toBe(1);
  });

  test('If-Match on migrate works as on other writes; an Idempotency-Key replays the first answer', async () => {
    const plan = await makePlan(api, slug, { name: 'Guarded', basePrice: 3 });
    await grant('guarded-a', plan.id);
    // The plan's tag, as its PUT answers it (there is no GET of one plan).
    const etag = (await api.put(planPath(plan.id), { basePrice: 4 })).headers.get('etag') as string;
    expect(etag).toBeTruthy();
    // The plan changes after that: the tag is stale, nothing moves.
    const changed = await api.put(planPath(plan.id), { description: 'changed since' });
    const stale = await api.post(`${planPath(plan.id)}/migrate`, { at: 'now' }, { headers: { 'if-match': etag } });
    expect(stale.status, stale.text).toBe(412);
    expect(stale.body.error.code).toBe('precondition_failed');
    expect((await api.get(`/api/v1/projects/${slug}/customers/guarded-a`)).body.subscription.planVersion).toBe(1);
    const current = changed.headers.get('etag') as string;
    const headers = { 'if-match': current, 'idempotency-key': `guarded-${plan.id}` };
    const moved = await api.post(`${planPath(plan.id)}/migrate`, { at: 'now' }, { headers });
    expect(moved.status, moved.text).toBe(202);
    expect(moved.body).toEqual({ migrating: 1 });
    expect((await api.get(`/api/v1/projects/${slug}/customers/guarded-a`)).body.subscription.planVersion).toBe(2);
    // The same key again: the kept answer, not a second run (which would answer 0).
    const replayed = await api.post(`${planPath(plan.id)}/migrate`, { at: 'now' }, { headers });
    expect(replayed.status).toBe(202);
    expect(replayed.body).toEqual({ migrating: 1 });
    // The same key with another body is refused, as everywhere.
    const other = await api.post(`${planPath(plan.id)}/migrate`, { at: 'period_end' }, { headers });
    expect(other.status).toBeGreaterThanOrEqual(400);
    expect(other.status).toBeLessThan(500);
  });

  test('period_end: a manual subscription moves when its period has ended, one without a period end at once', async () => {
    const plan = await makePlan(api, slug, { name: 'Later', basePrice: 3 });
    const future = new Date(Date.now() + 86_400_000).toISOString();
    const past = new Date(Date.now() + 1_500).toISOString();
    await grant('later-future', plan.id, { currentPeriodEnd: future });
    await grant('later-soon', plan.id, { currentPeriodEnd: past });
    await grant('later-none', plan.id);
    await api.put(planPath(plan.id), { basePrice: 4 });
    const res = await api.post(`${planPath(plan.id)}/migrate`, {});
    expect(res.body).toEqual({ migrating: 3 });
    const sub = async (id: string) => (await api.get(`/api/v1/projects/${slug}/customers/${id}`)).body.subscription;
    expect(await sub('later-future')).toMatchObject({ planVersion: 1, pendingVersion: 2 });
    expect(await sub('later-none')).toMatchObject({ planVersion: 2, pendingVersion: null });
    await new Promise((resolve) => setTimeout(resolve, 1_600));
    expect(await sub('later-soon')).toMatchObject({ planVersion: 2, pendingVersion: null });
    // Resent: nobody moves twice (the pending one is already on its way).
    expect((await api.post(`${planPath(plan.id)}/migrate`, {})).body).toEqual({ migrating: 0 });
  });

  test('a fault in the middle of 500 customers leaves each on one version; resent, the background finishes the rest', async () => {
    const plan = await makePlan(api, slug, { name: 'Many', basePrice: 2 });
    const ids = Array.from({ length: 500 }, (_, i) => `many-${String(i).padStart(3, '0')}`);
    // One grant through the API, then 499 copies of its item in batch writes (25 a request).
    const first = await grant(ids[0] as string, plan.id);
    const projectId = (await loadProject({ ownerId, slug })).project.projectId;
    const template = (await getCustomerItem(projectId, first.customerId)) as CustomerItem;
    await db()
      .entities.customer.put(ids.slice(1).map((customerId) => ({ ...template, customerId })))
      .go({ concurrency: 4 });
    await api.put(planPath(plan.id), { basePrice: 3 });
    const before = await api.get(`${planPath(plan.id)}/versions`);
    expect(before.body.versions.map((v: any) => [v.version, v.customers])).toEqual([
      [2, 0],
      [1, ids.length],
    ]);

    // A fault on the 200th move's transaction, as a crash of DynamoDB or of the process would
    // cut it: the migration fails there while other moves are still in flight.
    const moves = faultOnTransaction(200);
    const job = { ownerId, slug, planId: plan.id, fromVersions: [1], toVersion: 2, at: 'now' as const };
    const ports = { keyring: undefined as never, payments: undefined as never };
    await expect(runMigration(ports, job, { exhausted: () => false })).rejects.toThrow(/injected fault/);
    await moves.settled();
    moves.restore();

    const held = await versionsHeld(ids.length);
    expect([...held.keys()].sort()).toEqual(ids);
    expect([...held.values()].every((v) => v === 1 || v === 2)).toBe(true);
    const moved = [...held.values()].filter((v) => v === 2).length;
    expect(moved).toBeGreaterThanOrEqual(199);
    expect(moved).toBeLessThan(ids.length);

    // Resent: more than a request moves, so 202 and the rest moves in the background.
    const resent = await api.post(`${planPath(plan.id)}/migrate`, { at: 'now' });
    expect(resent.status, resent.text).toBe(202);
    expect(resent.body).toEqual({ migrating: ids.length - moved });
    await vi.waitFor(
      async () => {
        const list = await api.get(`${planPath(plan.id)}/versions`);
        expect(list.body.versions.map((v: any) => [v.version, v.customers])).toEqual([
          [2, ids.length],
          [1, 0],
        ]);
      },
      { timeout: 120_000, interval: 500 },
    );
    const after = await versionsHeld(ids.length);
    expect([...after.values()].every((v) => v === 2)).toBe(true);
    // Nothing left to do: a second resend moves no one.
    expect((await api.post(`${planPath(plan.id)}/migrate`, { at: 'now' })).body).toEqual({ migrating: 0 });
  }, 240_000);

  test('20 concurrent writes during a migration: every customer ends on a version that existed', async () => {
    const plan = await makePlan(api, slug, { name: 'Busy', basePrice: 1 });
    const ids = Array.from({ length: 30 }, (_, i) => `busy-${String(i).padStart(3, '0')}`);
    for (let i = 0; i < ids.length; i += 10) await Promise.all(ids.slice(i, i + 10).map((id) => grant(id, plan.id)));
    await api.put(planPath(plan.id), { basePrice: 2 });
    const writes = Array.from({ length: 20 }, (_, i) =>
      i % 2 === 0
        ? api.put(planPath(plan.id), { basePrice: 3 + i })
        : api.put(`/api/v1/projects/${slug}/customers/${ids[i]}`, { planId: plan.id, seats: 2 }),
    );
    const [migration, ...done] = await Promise.all([
      api.post(`${planPath(plan.id)}/migrate`, { fromVersions: [1], toVersion: 2, at: 'now' }),
      ...writes,
    ]);
    expect(migration.status, migration.text).toBe(202);
    for (const res of done) expect(res.status, res.text).toBe(200);
    const current = (await api.get(`/api/v1/projects/${slug}/plans`)).body.plans.find((p: any) => p.id === plan.id);
    expect(current.version).toBe(12);
    const list = await api.get(`${planPath(plan.id)}/versions`);
    const existing = new Set(list.body.versions.map((v: any) => v.version));
    expect(existing.size).toBe(12);
    for (const id of ids) {
      const sub = (await api.get(`/api/v1/projects/${slug}/customers/${id}`)).body.subscription;
      expect(existing.has(sub.planVersion), `${id} holds ${sub.planVersion}`).toBe(true);
    }
    // Nobody is left on version 1 unless a grant after the migration put it on the current one.
    expect(list.body.versions.find((v: any) => v.version === 1).customers).toBe(0);
  });
});

describe('migration of Stripe subscriptions, through the fake Stripe over HTTP', () => {
  test('Stripe refusing one subscription holds back no other customer; the answer fails, and the resend moves that one', async () => {
    const shop = await makeProject(api, { paymentSecretKey: `sk_test_${'w'.repeat(24)}` });
    const secret = newWebhookSecret();
    expect((await api.put(`/api/v1/projects/${shop.slug}`, { paymentWebhookSecret: secret })).status).toBe(200);
    const plan = await makePlan(api, shop.slug, { name: 'Mixed', basePrice: 5 });
    const shopPlan = `/api/v1/projects/${shop.slug}/plans/${plan.id}`;
    // First in customer order, so in the first group of moves: a Stripe subscription.
    const sold = subscriptionObject({
      projectId: shop.id,
      planId: plan.id,
      customerId: 'a-stripe',
      id: 'sub_refused',
      metadata: { planVersion: '1' },
    });
    const visitor = server.client();
    const applied = await deliver(visitor, shop.shareId, stripeEvent('customer.subscription.created', sold), secret);
    expect(applied.body).toMatchObject({ outcome: 'applied' });
    const manual = Array.from({ length: 12 }, (_, i) => `b-${String(i).padStart(2, '0')}`);
    await Promise.all(
      manual.map((id) =>
        api.put(`/api/v1/projects/${shop.slug}/customers/${id}`, { planId: plan.id }).then((r) => {
          expect(r.status, r.text).toBe(200);
        }),
      ),
    );
    expect((await api.put(shopPlan, { basePrice: 6 })).body.version).toBe(2);
    const counts = async () =>
      (await api.get(`${shopPlan}/versions`)).body.versions.map((v: any) => [v.version, v.customers]);

    // Stripe refuses the update of that one subscription (as it does a canceled one's).
    fake.failNext({
      status: 400,
      type: 'invalid_request_error',
      message: 'You cannot update a canceled subscription.',
    });
    const refused = await api.post(`${shopPlan}/migrate`, { at: 'now' });
    expect(refused.status, refused.text).toBe(502);
    expect(refused.body.error.code).toBe('payment_provider_error');
    expect(await counts()).toEqual([
      [2, manual.length],
      [1, 1],
    ]);
    // Sent again once Stripe takes it (this fake no longer knows the subscription: it moves here).
    const resent = await api.post(`${shopPlan}/migrate`, { at: 'now' });
    expect(resent.status, resent.text).toBe(202);
    expect(resent.body).toEqual({ migrating: 1 });
    expect(await counts()).toEqual([
      [2, manual.length + 1],
      [1, 0],
    ]);
  });

  test('checkout sells the version; migrate reprices the item (prorated for now, from the next period for period_end); the renewal takes the pending version', async () => {
    const stripeKey = `sk_test_${'v'.repeat(24)}`;
    const shop = await makeProject(api, {
      paymentSecretKey: stripeKey,
      checkoutTestSuccessUrl: 'https://shop.example/ok',
      checkoutTestCancelUrl: 'https://shop.example/pricing',
    });
    const shopPlans = `/api/v1/projects/${shop.slug}/plans`;
    const endpoint = await fetch(`${fake.url}/v1/webhook_endpoints`, {
      method: 'POST',
      headers: { authorization: `Bearer ${stripeKey}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ url: `${server.url}/api/payments/webhook/${shop.shareId}`, 'enabled_events[]': '*' }),
    }).then((r) => r.json() as Promise<{ secret: string }>);
    expect((await api.put(`/api/v1/projects/${shop.slug}`, { paymentWebhookSecret: endpoint.secret })).status).toBe(
      200,
    );
    const plan = await makePlan(api, shop.slug, { name: 'Stripe Pro', basePrice: 10 });
    const buy = async (customerId: string) => {
      const visitor = server.client();
      const session = await visitor.post('/api/payments/checkout', {
        shareId: shop.shareId,
        planId: plan.id,
        customerId,
      });
      expect(session.status, session.text).toBe(200);
      expect(fake.lastSessionCreate()?.body).toMatchObject({ metadata: { planVersion: '1' } });
      fake.complete(session.body.sessionId);
      await fake.webhooksSettled();
      const customer = await api.get(`/api/v1/projects/${shop.slug}/customers/${customerId}`);
      expect(customer.body.subscription).toMatchObject({ planVersion: 1, source: 'stripe' });
      return customer.body.subscription.stripeSubscriptionId as string;
    };
    const laterSub = await buy('stripe-later');
    const nowSub = await buy('stripe-now');
    await api.put(`${shopPlans}/${plan.id}`, { basePrice: 15 });

    const sub = async (id: string) =>
      (await api.get(`/api/v1/projects/${shop.slug}/customers/${id}`)).body.subscription;
    // Period end: the price changes at Stripe without proration, the customer shows the pending version.
    const later = await api.post(`${shopPlans}/${plan.id}/migrate`, { fromVersions: [1], toVersion: 2 });
    expect(later.body).toEqual({ migrating: 2 });
    await fake.webhooksSettled();
    const stripeLater = fake.subscriptions.get(laterSub);
    expect(stripeLater?.items.data[0]?.price.unit_amount).toBe(1500);
    expect(stripeLater?.metadata).toMatchObject({ planId: String(plan.id), planVersion: '2' });
    expect(stripeLater?.internal.prorations ?? []).toEqual([]);
    const update = fake.requests.findLast((r) => r.method === 'POST' && r.path === `/v1/subscriptions/${laterSub}`);
    expect(update?.body).toMatchObject({ proration_behavior: 'none' });
    // The update's own webhook (same period) keeps the held version and the pending one.
    expect(await sub('stripe-later')).toMatchObject({ planVersion: 1, pendingVersion: 2 });
    // The renewal's webhook takes it. (Stripe stamps events in whole seconds, and two updates of
    // one subscription in one second cannot be ordered: a renewal comes a period later.)
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    fake.renewSubscription(laterSub);
    await fake.webhooksSettled();
    expect(await sub('stripe-later')).toMatchObject({ planVersion: 2, pendingVersion: null });

    // At once: prorated at Stripe, moved here. (stripe-now is pending from the migration above.)
    expect(await sub('stripe-now')).toMatchObject({ planVersion: 1, pendingVersion: 2 });
    await api.put(`${shopPlans}/${plan.id}`, { basePrice: 20 });
    const now = await api.post(`${shopPlans}/${plan.id}/migrate`, { fromVersions: [1, 2], toVersion: 3, at: 'now' });
    expect(now.body).toEqual({ migrating: 2 });
    await fake.webhooksSettled();
    const stripeNow = fake.subscriptions.get(nowSub);
    expect(stripeNow?.items.data[0]?.price.unit_amount).toBe(2000);
    expect(stripeNow?.internal.prorations?.[0]).toMatchObject({ behavior: 'create_prorations' });
    expect(await sub('stripe-now')).toMatchObject({ planVersion: 3, pendingVersion: null });
    expect(await sub('stripe-later')).toMatchObject({ planVersion: 3, pendingVersion: null });
  });
});

/** Each customer's held version, read through the list (pages of 100). */
async function versionsHeld(expected: number): Promise<Map<string, number>> {
  const held = new Map<string, number>();
  for (let cursor: string | null = null, first = true; first || cursor; first = false) {
    const query: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : '';
    const page = await api.get(`/api/v1/projects/${slug}/customers?limit=100${query}`);
    expect(page.status, page.text).toBe(200);
    for (const customer of page.body.customers) {
      if (customer.customerId.startsWith('many-')) held.set(customer.customerId, customer.subscription.planVersion);
    }
    cursor = page.body.nextCursor;
  }
  expect(held.size).toBe(expected);
  return held;
}

/**
 * Fails the `nth` TransactWriteItems this process sends from now on (a migration's moves are
 * one transaction each) and every one after it, as a dead process would send none; `settled`
 * waits for those already on the wire.
 */
function faultOnTransaction(nth: number) {
  let sent = 0;
  const inFlight = new Set<Promise<unknown>>();
  const spies = [DynamoDBDocumentClient.prototype, DynamoDBClient.prototype].map((prototype) => {
    const send = prototype.send;
    return vi.spyOn(prototype, 'send').mockImplementation(function (this: unknown, ...args: any[]) {
      const name = (args[0] as { constructor: { name: string } }).constructor.name;
      if (name.startsWith('TransactWrite') && ++sent >= nth) return Promise.reject(new Error('injected fault'));
      const answer = (send as any).apply(this, args) as Promise<unknown>;
      const tracked = answer.catch(() => undefined).finally(() => inFlight.delete(tracked));
      inFlight.add(tracked);
      return answer;
    } as any);
  });
  return {
    async settled() {
      while (inFlight.size > 0) await Promise.all([...inFlight]);
    },
    restore() {
      for (const spy of spies) spy.mockRestore();
    },
  };
}
