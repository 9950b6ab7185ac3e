import { beforeAll, describe, expect, test, vi } from 'vitest';
import { db } from '#db/service.ts';
import { encodeCursor } from '#domain/pages.ts';
import { type ApiClient, newOwner, useLocalServer } from '../fixtures/api.ts';
import { makeFeature, makePlan, makeProject } from '../fixtures/factories.ts';
import { deliver, eventId, newWebhookSecret, stripeEvent, subscriptionObject } from '../fixtures/stripe-events.ts';
import { sweepsFinished } from '../fixtures/sweeps.ts';
import { itemsOfProject } from '../fixtures/table.ts';

/**
 * billing.md end to end over real HTTP: signed Stripe events in, customers, subscriptions
 * and entitlements out. The project cache is off here (PROJECT_CACHE_TTL_SECONDS=0) so a plan
 * edit shows at once; tests/integration/entitlements-cache.test.ts covers the cache.
 */
vi.hoisted(() => {
  process.env.PROJECT_CACHE_TTL_SECONDS = '0';
});

const server = useLocalServer();
let api: ApiClient;
let reader: ApiClient;
let visitor: ApiClient;
let project: { slug: string; shareId: string; id: number };
let secret: string;
let seats: { id: number };
let sso: { id: number };
let retention: { id: number };
let free: { id: number };
let pro: { id: number };
let hidden: { id: number };
let base: string;

let owner: Awaited<ReturnType<typeof newOwner>>;

beforeAll(async () => {
  owner = await newOwner('customers');
  api = server.client(owner.writeKey);
  reader = server.client(owner.readKey);
  visitor = server.client();
  project = await makeProject(api);
  base = `/api/v1/projects/${project.slug}/customers`;
  seats = await makeFeature(api, project.slug, { name: 'Seats', isCountable: true, usageCount: 5 });
  sso = await makeFeature(api, project.slug, { name: 'SSO' });
  retention = await makeFeature(api, project.slug, {
    name: 'Retention',
    isCountable: true,
    usageCount: 12,
    condition: 'unlimited',
  });
  free = await makePlan(api, project.slug, { name: 'Free', isFree: true, features: [{ featureId: seats.id }] });
  pro = await makePlan(api, project.slug, {
    name: 'Pro',
    features: [{ featureId: seats.id, multiplier: 2 }, { featureId: sso.id }, { featureId: retention.id }],
  });
  hidden = await makePlan(api, project.slug, {
    name: 'Enterprise',
    isVisible: false,
    features: [{ featureId: sso.id }],
  });
  secret = newWebhookSecret();
  const put = await api.put(`/api/v1/projects/${project.slug}`, { paymentWebhookSecret: secret });
  expect(put.status, put.text).toBe(200);
});

const subscriptionEvent = (type: string, options: Partial<Parameters<typeof subscriptionObject>[0]>, at?: number) =>
  stripeEvent(type, subscriptionObject({ projectId: project.id, planId: pro.id, ...options }), { created: at });

const entitlements = (customerId: string) => api.get(`${base}/${customerId}/entitlements`);

describe('project fields', () => {
  test('paymentWebhookSecret is write-only; the project shows paymentWebhookConnected and webhookUrl', async () => {
    const got = await api.get(`/api/v1/projects/${project.slug}`);
    expect(got.body).toMatchObject({
      paymentWebhookConnected: true,
      webhookUrl: `${server.url}/api/payments/webhook/${project.shareId}`,
    });
    expect(got.text).not.toContain(secret);
    expect(got.text).not.toContain('paymentWebhookSecret');
    const list = await api.get('/api/v1/projects');
    expect(list.body.projects[0]).toMatchObject({ paymentWebhookConnected: true });
  });

  test('a malformed secret is a 400 that does not echo it; null disconnects', async () => {
    const other = await makeProject(api, { paymentWebhookSecret: newWebhookSecret() });
    expect(other.paymentWebhookConnected).toBe(true);
    const bad = await api.put(`/api/v1/projects/${other.slug}`, { paymentWebhookSecret: 'whsec_short!' });
    expect(bad.status).toBe(400);
    expect(bad.text).not.toContain('whsec_short!');
    const off = await api.put(`/api/v1/projects/${other.slug}`, { paymentWebhookSecret: null });
    expect(off.body.paymentWebhookConnected).toBe(false);
    const event = stripeEvent('customer.subscription.created', subscriptionObject({ projectId: other.id, planId: 1 }));
    const refused = await deliver(visitor, other.shareId, event, newWebhookSecret());
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('payments_not_configured');
  });
});

describe('webhook signature', () => {
  const event = () => subscriptionEvent('customer.subscription.created', { customerId: 'sig-user' });

  test('a good signature is applied', async () => {
    const response = await deliver(visitor, project.shareId, event(), secret);
    expect(response.status, response.text).toBe(200);
    expect(response.body).toEqual({ received: true, outcome: 'applied' });
    expect(response.headers.get('x-request-id')).toBeTruthy();
  });

  test.each([
    ['bad (another secret)', () => newWebhookSecret(), undefined],
    ['missing', () => null, undefined],
    ['stale (400 s old)', () => secret, Math.floor(Date.now() / 1000) - 400],
  ])('%s: 400 invalid_signature, nothing stored', async (_label, secretOf, timestamp) => {
    const customerId = `sig-${Math.random().toString(36).slice(2)}`;
    const response = await deliver(
      visitor,
      project.shareId,
      subscriptionEvent('customer.subscription.created', { customerId }),
      secretOf(),
      timestamp,
    );
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('invalid_signature');
    expect((await api.get(`${base}/${customerId}`)).status).toBe(404);
  });

  test("another project's secret does not verify here", async () => {
    const otherSecret = newWebhookSecret();
    await makeProject(api, { paymentWebhookSecret: otherSecret });
    const customerId = 'sig-cross';
    const response = await deliver(
      visitor,
      project.shareId,
      subscriptionEvent('customer.subscription.created', { customerId }),
      otherSecret,
    );
    expect(response.status).toBe(400);
    expect((await api.get(`${base}/${customerId}`)).status).toBe(404);
  });

  test('a body changed after signing does not verify; unknown share ids are 404', async () => {
    const payload = JSON.stringify(event());
    const { signature } = await import('../fixtures/stripe-events.ts');
    const header = signature(payload, secret);
    const tampered = await visitor.request('POST', `/api/payments/webhook/${project.shareId}`, {
      rawBody: payload.replace('"active"', '"trialing"'),
      headers: { 'content-type': 'application/json', 'stripe-signature': header },
    });
    expect(tampered.status).toBe(400);
    const unknown = await deliver(visitor, 'nosuchshareid0000000000000', event(), secret);
    expect(unknown.status).toBe(404);
  });

  test('other event types and other projects’ sales are 200 and ignored', async () => {
    const other = stripeEvent('invoice.paid', { id: 'in_1', object: 'invoice' });
    expect((await deliver(visitor, project.shareId, other, secret)).body.outcome).toBe('ignored');
    const foreign = stripeEvent(
      'customer.subscription.created',
      subscriptionObject({ projectId: project.id + 100000, planId: pro.id, customerId: 'foreign' }),
    );
    expect((await deliver(visitor, project.shareId, foreign, secret)).body.outcome).toBe('ignored');
    expect((await api.get(`${base}/foreign`)).status).toBe(404);
  });
});

describe('exactly once, in order', () => {
  test('a redelivered event changes nothing', async () => {
    const event = subscriptionEvent('customer.subscription.created', { customerId: 'once' });
    expect((await deliver(visitor, project.shareId, event, secret)).body.outcome).toBe('applied');
    const first = await api.get(`${base}/once`);
    expect((await deliver(visitor, project.shareId, event, secret)).body.outcome).toBe('duplicate');
    expect((await api.get(`${base}/once`)).body).toEqual(first.body);
  });

  test('concurrent duplicate deliveries apply once', async () => {
    const event = subscriptionEvent('customer.subscription.created', { customerId: 'concurrent' });
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => deliver(visitor, project.shareId, event, secret)),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(8).fill(200));
    const outcomes = answers.map((a) => a.body.outcome).sort();
    expect(outcomes).toEqual(['applied', ...Array(7).fill('duplicate')]);
  });

  test('an older event delivered after a newer one changes nothing', async () => {
    const t = Math.floor(Date.now() / 1000);
    const id = 'sub_ordered';
    const canceled = subscriptionEvent('customer.subscription.deleted', { customerId: 'ordered', id }, t + 20);
    const created = subscriptionEvent('customer.subscription.created', { customerId: 'ordered', id }, t);
    const updated = subscriptionEvent(
      'customer.subscription.updated',
      { customerId: 'ordered', id, quantity: 3 },
      t + 10,
    );
    expect((await deliver(visitor, project.shareId, canceled, secret)).body.outcome).toBe('applied');
    expect((await deliver(visitor, project.shareId, updated, secret)).body.outcome).toBe('stale');
    expect((await deliver(visitor, project.shareId, created, secret)).body.outcome).toBe('stale');
    const customer = await api.get(`${base}/ordered`);
    expect(customer.body.subscription).toMatchObject({ status: 'canceled', seats: 1, stripeSubscriptionId: id });
  });

  test("an old subscription's end does not end the new one of a plan change", async () => {
    const t = Math.floor(Date.now() / 1000);
    await deliver(
      visitor,
      project.shareId,
      subscriptionEvent('customer.subscription.created', { customerId: 'switch', id: 'sub_old' }, t),
      secret,
    );
    await deliver(
      visitor,
      project.shareId,
      subscriptionEvent(
        'customer.subscription.created',
        { customerId: 'switch', id: 'sub_new', planId: hidden.id },
        t + 5,
      ),
      secret,
    );
    const ended = await deliver(
      visitor,
      project.shareId,
      subscriptionEvent('customer.subscription.deleted', { customerId: 'switch', id: 'sub_old' }, t + 6),
      secret,
    );
    expect(ended.body.outcome).toBe('stale');
    expect((await entitlements('switch')).body).toMatchObject({ planId: hidden.id, status: 'active' });
  });
});

describe('subscriptions and entitlements', () => {
  test('the subscription is read from the payload as delivered', async () => {
    const start = 1_800_000_000;
    const event = subscriptionEvent('customer.subscription.created', {
      customerId: 'payload',
      customer: 'cus_payload',
      status: 'trialing',
      interval: 'year',
      quantity: 4,
      periodStart: start,
      periodEnd: start + 86400,
      cancelAtPeriodEnd: true,
    });
    await deliver(visitor, project.shareId, event, secret);
    const customer = await reader.get(`${base}/payload`);
    expect(customer.status).toBe(200);
    expect(customer.body).toMatchObject({
      customerId: 'payload',
      email: null,
      stripeCustomerId: 'cus_payload',
      subscription: {
        planId: pro.id,
        customPlan: false,
        features: null,
        status: 'trialing',
        seats: 4,
        billingInterval: 'year',
        currentPeriodStart: new Date(start * 1000).toISOString(),
        currentPeriodEnd: new Date((start + 86400) * 1000).toISOString(),
        cancelAtPeriodEnd: true,
        stripeSubscriptionId: event.data.object.id,
        source: 'stripe',
      },
    });
  });

  test.each([
    ['trialing', true],
    ['active', true],
    ['past_due', true],
    ['canceled', false],
    ['unpaid', false],
    ['incomplete', false],
    ['incomplete_expired', false],
    ['paused', false],
  ])('status %s grants the plan: %s', async (status, granted) => {
    const customerId = `status-${status}`;
    await deliver(
      visitor,
      project.shareId,
      subscriptionEvent('customer.subscription.updated', { customerId, status }),
      secret,
    );
    const { body } = await entitlements(customerId);
    if (granted) {
      expect(body).toMatchObject({ customerId, planId: pro.id, status });
      expect(body.entitlements.map((e: { hasAccess: boolean }) => e.hasAccess)).toEqual([true, true, true]);
    } else {
      expect(body).toMatchObject({ customerId, planId: free.id, status: null });
      expect(body.entitlements.map((e: { hasAccess: boolean }) => e.hasAccess)).toEqual([true, false, false]);
    }
  });

  test('entitlement shape: limits from multipliers, unlimited, no access, resetsAt', async () => {
    await deliver(
      visitor,
      project.shareId,
      subscriptionEvent('customer.subscription.created', { customerId: 'shape' }),
      secret,
    );
    const { body, status } = await reader.get(`${base}/shape/entitlements`);
    expect(status).toBe(200);
    const now = new Date();
    const resetsAt = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString();
    expect(body.entitlements).toEqual([
      {
        featureId: seats.id,
        name: 'Seats',
        featureType: 'Standart',
        hasAccess: true,
        limit: 10,
        usage: 0,
        remaining: 10,
        resetsAt,
      },
      {
        featureId: sso.id,
        name: 'SSO',
        featureType: 'Standart',
        hasAccess: true,
        limit: null,
        usage: 0,
        remaining: null,
        resetsAt,
      },
      {
        featureId: retention.id,
        name: 'Retention',
        featureType: 'Standart',
        hasAccess: true,
        limit: null,
        usage: 0,
        remaining: null,
        resetsAt,
      },
    ]);
    const one = await reader.get(`${base}/shape/entitlements/${seats.id}?required=10`);
    expect(one.body).toMatchObject({ featureId: seats.id, limit: 10, allowed: true });
    expect((await reader.get(`${base}/shape/entitlements/${seats.id}?required=11`)).body.allowed).toBe(false);
    expect((await reader.get(`${base}/shape/entitlements/${sso.id}`)).body.allowed).toBe(true);
    expect((await reader.get(`${base}/nobody/entitlements/${sso.id}`)).body).toMatchObject({
      hasAccess: false,
      limit: 0,
      allowed: false,
    });
    expect((await reader.get(`${base}/shape/entitlements/999999`)).status).toBe(404);
    expect((await reader.get(`${base}/shape/entitlements/${seats.id}?required=-1`)).status).toBe(400);
  });

  test("a plan edit never changes what a subscriber holds; the free plan's edits reach customers without one", async () => {
    await deliver(
      visitor,
      project.shareId,
      subscriptionEvent('customer.subscription.created', { customerId: 'edit' }),
      secret,
    );
    const edited = await makePlan(api, project.slug, { name: 'Editable', features: [{ featureId: seats.id }] });
    await api.put(`${base}/edit`, { planId: edited.id });
    expect((await entitlements('edit')).body.entitlements[0].limit).toBe(5);
    await api.put(`/api/v1/projects/${project.slug}/plans/${edited.id}/features/${seats.id}`, { multiplier: 3 });
    expect((await entitlements('edit')).body.entitlements[0].limit).toBe(5);
    await api.post(`/api/v1/projects/${project.slug}/plans/${edited.id}/features`, { featureId: sso.id });
    expect((await entitlements('edit')).body.entitlements[1].hasAccess).toBe(false);
    // A new grant holds the plan as it is now.
    await api.put(`${base}/edit`, { planId: edited.id });
    expect((await entitlements('edit')).body.entitlements[0].limit).toBe(15);
    expect((await entitlements('edit')).body.entitlements[1].hasAccess).toBe(true);
    // The plan deleted: its holder keeps the version it holds.
    await api.delete(`/api/v1/projects/${project.slug}/plans/${edited.id}`);
    expect((await entitlements('edit')).body).toMatchObject({ planId: edited.id, status: 'active' });
    expect((await entitlements('edit')).body.entitlements[0].limit).toBe(15);
  });

  test('a custom plan grants its chosen features, quantities as limits', async () => {
    const details = JSON.stringify([
      { id: seats.id, name: 'Seats', quantity: 42, price: 1 },
      { id: sso.id, name: 'SSO', quantity: null, price: 1 },
    ]);
    const event = stripeEvent(
      'customer.subscription.created',
      subscriptionObject({ projectId: project.id, customerId: 'custom', metadata: { featureDetails_0: details } }),
    );
    expect((await deliver(visitor, project.shareId, event, secret)).body.outcome).toBe('applied');
    const customer = await api.get(`${base}/custom`);
    expect(customer.body.subscription).toMatchObject({
      planId: null,
      customPlan: true,
      features: [
        { featureId: seats.id, quantity: 42 },
        { featureId: sso.id, quantity: null },
      ],
    });
    const { body } = await entitlements('custom');
    expect(body).toMatchObject({ planId: null, status: 'active' });
    expect(body.entitlements.map((e: { limit: number | null; hasAccess: boolean }) => [e.hasAccess, e.limit])).toEqual([
      [true, 42],
      [true, null],
      [false, 0],
    ]);
  });

  test('an unknown customer gets the free plan; without a free plan, nothing', async () => {
    const { body, status } = await entitlements('never-seen');
    expect(status).toBe(200);
    expect(body).toMatchObject({ customerId: 'never-seen', planId: free.id, status: null });
    const bare = await makeProject(api);
    const feature = await makeFeature(api, bare.slug);
    const none = await api.get(`/api/v1/projects/${bare.slug}/customers/x/entitlements`);
    expect(none.body).toMatchObject({ planId: null, status: null });
    expect(none.body.entitlements).toEqual([
      expect.objectContaining({ featureId: feature.id, hasAccess: false, limit: 0 }),
    ]);
  });

  test('checkout.session.completed names the customer by client_reference_id and keeps the e-mail', async () => {
    const session = {
      id: 'cs_test_1',
      object: 'checkout.session',
      mode: 'subscription',
      payment_status: 'paid',
      client_reference_id: 'session-user',
      customer: 'cus_session',
      customer_details: { email: 'buyer@example.com' },
      subscription: 'sub_session',
      metadata: { projectId: String(project.id), planId: String(pro.id), customerId: 'session-user' },
    };
    const response = await deliver(
      visitor,
      project.shareId,
      stripeEvent('checkout.session.completed', session),
      secret,
    );
    expect(response.body.outcome).toBe('applied');
    const customer = await api.get(`${base}/session-user`);
    expect(customer.body).toMatchObject({
      email: 'buyer@example.com',
      stripeCustomerId: 'cus_session',
      subscription: { planId: pro.id, status: 'active', stripeSubscriptionId: 'sub_session', source: 'stripe' },
    });
  });
});

describe('Customers API', () => {
  test('PUT grants a plan by hand (hidden plans too), replacing a Stripe subscription', async () => {
    await deliver(
      visitor,
      project.shareId,
      subscriptionEvent('customer.subscription.created', { customerId: 'manual' }),
      secret,
    );
    const put = await api.put(`${base}/manual`, {
      planId: hidden.id,
      status: 'trialing',
      seats: 3,
      email: 'm@example.com',
      currentPeriodEnd: '2030-01-01T00:00:00Z',
    });
    expect(put.status, put.text).toBe(200);
    expect(put.body).toMatchObject({
      customerId: 'manual',
      email: 'm@example.com',
      subscription: {
        planId: hidden.id,
        status: 'trialing',
        seats: 3,
        source: 'manual',
        stripeSubscriptionId: null,
        currentPeriodEnd: '2030-01-01T00:00:00.000Z',
      },
    });
    expect((await api.get(`${base}/manual`)).body).toEqual(put.body);
    // A Stripe event older than the grant changes nothing.
    const old = subscriptionEvent(
      'customer.subscription.updated',
      { customerId: 'manual' },
      Math.floor(Date.now() / 1000) - 60,
    );
    expect((await deliver(visitor, project.shareId, old, secret)).body.outcome).toBe('stale');
  });

  test('PUT validation: 400 for bodies and malformed ids, 404 for an unknown plan', async () => {
    expect((await api.put(`${base}/v`, {})).status).toBe(400);
    expect((await api.put(`${base}/v`, { planId: pro.id, status: 'canceled' })).status).toBe(400);
    const typo = await api.put(`${base}/v`, { planId: pro.id, seat: 2 });
    expect(typo.status).toBe(400);
    expect(typo.body.error.message).toContain('seat');
    expect((await api.put(`${base}/${encodeURIComponent('bad id!')}`, { planId: pro.id })).status).toBe(400);
    expect((await api.put(`${base}/${'x'.repeat(129)}`, { planId: pro.id })).status).toBe(400);
    expect((await api.put(`${base}/v`, { planId: 999999 })).status).toBe(404);
  });

  test('DELETE removes the customer; Stripe is not touched; a second DELETE is 404', async () => {
    await api.put(`${base}/gone`, { planId: pro.id });
    expect((await api.delete(`${base}/gone`)).body).toEqual({ success: true });
    expect((await api.get(`${base}/gone`)).status).toBe(404);
    expect((await api.delete(`${base}/gone`)).status).toBe(404);
    expect((await entitlements('gone')).body.planId).toBe(free.id);
  });

  test('a read key on PUT and DELETE is 403, whatever the body', async () => {
    expect((await reader.put(`${base}/r`, { planId: pro.id })).status).toBe(403);
    expect((await reader.put(`${base}/r`, { nonsense: true })).status).toBe(403);
    expect((await reader.delete(`${base}/r`)).status).toBe(403);
    expect((await reader.get(`${base}`)).status).toBe(200);
  });

  test("another owner's customers are a 404; no key is a 401", async () => {
    await api.put(`${base}/tenant`, { planId: pro.id });
    const stranger = server.client((await newOwner('stranger')).writeKey);
    for (const path of [
      base,
      `${base}/tenant`,
      `${base}/tenant/entitlements`,
      `${base}/tenant/entitlements/${sso.id}`,
    ]) {
      const response = await stranger.get(path);
      expect(response.status, path).toBe(404);
      expect(response.text).not.toContain('tenant"');
    }
    expect((await stranger.put(`${base}/tenant`, { planId: pro.id })).status).toBe(404);
    expect((await stranger.delete(`${base}/tenant`)).status).toBe(404);
    expect((await visitor.get(base)).status).toBe(401);
  });
});

describe('listing', () => {
  test('pages over 250 customers in byte order of customerId, each once', { timeout: 120_000 }, async () => {
    const listed = await makeProject(api);
    const plan = await makePlan(api, listed.slug, { name: 'P' });
    const ids = Array.from({ length: 250 }, (_, i) => `${i % 2 ? 'U' : 'l'}-${String(i).padStart(3, '0')}`);
    // Written in batches (the API's PUT is tested above); the listing is what is tested here.
    const now = new Date().toISOString();
    await db()
      .entities.customer.put(
        ids.map((customerId) => ({ projectId: listed.id, customerId, version: 1, createdAt: now, updatedAt: now })),
      )
      .go({ concurrency: 4 });
    await api.put(`/api/v1/projects/${listed.slug}/customers/${ids[0]}`, { planId: plan.id });
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: string = cursor ? `?limit=100&cursor=${cursor}` : '?limit=100';
      const page = await reader.get(`/api/v1/projects/${listed.slug}/customers${query}`);
      expect(page.status, page.text).toBe(200);
      seen.push(...page.body.customers.map((c: { customerId: string }) => c.customerId));
      cursor = page.body.nextCursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toEqual([...ids].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b))));
    const first = await reader.get(`/api/v1/projects/${listed.slug}/customers`);
    expect(first.body.customers).toHaveLength(50);
    // A cursor of another list (the projects list pages by numeric id) is not one of this list's.
    const projectsCursor = `?cursor=${encodeCursor(1)}`;
    for (const bad of [
      '?limit=0',
      '?limit=101',
      '?limit=x',
      '?limit=050',
      '?cursor=***',
      '?cursor=AAAA',
      projectsCursor,
    ]) {
      const answer = await reader.get(`/api/v1/projects/${listed.slug}/customers${bad}`);
      expect(answer.status, bad).toBe(400);
      expect(answer.body.error.code, bad).toBe('validation_error');
    }
  });
});

test('customer ids of 128 characters end pages and their cursors come back whole', async () => {
  const listed = await makeProject(api);
  const plan = await makePlan(api, listed.slug, { name: 'P' });
  // The longest ids of every allowed character kind: the cursor naming one stays under its 200-character bound.
  const ids = ['a', 'Z', '9'].map((c) => `${c}.${'_:@-'.repeat(31)}${c}${c}`);
  for (const id of ids) {
    expect(id).toHaveLength(128);
    expect((await api.put(`/api/v1/projects/${listed.slug}/customers/${id}`, { planId: plan.id })).status).toBe(200);
  }
  const seen: string[] = [];
  let cursor: string | null = null;
  do {
    const query: string = cursor ? `?limit=1&cursor=${cursor}` : '?limit=1';
    const page = await reader.get(`/api/v1/projects/${listed.slug}/customers${query}`);
    expect(page.status, page.text).toBe(200);
    seen.push(...page.body.customers.map((c: { customerId: string }) => c.customerId));
    cursor = page.body.nextCursor;
    if (cursor) expect(cursor.length).toBeLessThanOrEqual(200);
  } while (cursor);
  expect(seen).toEqual([...ids].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b))));
});

test('events with the same id in another customer are still applied once per event', async () => {
  const id = eventId();
  const a = stripeEvent(
    'customer.subscription.created',
    subscriptionObject({ projectId: project.id, planId: pro.id, customerId: 'twin' }),
    { id },
  );
  expect((await deliver(visitor, project.shareId, a, secret)).body.outcome).toBe('applied');
  expect((await deliver(visitor, project.shareId, a, secret)).body.outcome).toBe('duplicate');
});

describe('project delete', () => {
  test('removes its customers too, whatever their number', { timeout: 120_000 }, async () => {
    const doomed = await makeProject(api);
    const plan = await makePlan(api, doomed.slug, { name: 'P' });
    await api.put(`/api/v1/projects/${doomed.slug}/customers/by-api`, { planId: plan.id });
    const now = new Date().toISOString();
    const ids = Array.from({ length: 120 }, (_, i) => `bulk-${i}`);
    await db()
      .entities.customer.put(
        ids.map((customerId) => ({ projectId: doomed.id, customerId, version: 1, createdAt: now, updatedAt: now })),
      )
      .go({ concurrency: 4 });
    const before = await db().entities.customer.query.byProject({ projectId: doomed.id }).go({ pages: 'all' });
    expect(before.data).toHaveLength(121);
    expect((await api.delete(`/api/v1/projects/${doomed.slug}`)).status).toBe(200);
    // The sweep runs after DELETE has answered (the local server's background sweeper).
    await sweepsFinished(owner.ownerId);
    const after = await db()
      .entities.customer.query.byProject({ projectId: doomed.id })
      .go({ pages: 'all', consistent: true });
    expect(after.data).toEqual([]);
    expect(await itemsOfProject(owner.ownerId, doomed.slug, doomed.shareId)).toEqual([]);
  });
});
