import { beforeAll, describe, expect, test, vi } from 'vitest';
import type { FakeSubscription } from '#dev/fake-stripe/index.ts';
import { type ApiClient, newOwner, useLocalServer } from '../fixtures/api.ts';
import { makePlan, makeProject } from '../fixtures/factories.ts';
import { deliver, type SubscriptionOptions, stripeEvent, subscriptionObject } from '../fixtures/stripe-events.ts';
import { eventually, startReceiver } from '../fixtures/webhook-receiver.ts';

/**
 * lifecycle.md §2 end to end over real HTTP: the owner's v1 calls change Stripe-sourced
 * subscriptions at the fake Stripe (through the real SDK) and manual ones here; the webhook
 * that follows a change changes nothing more; every "bad input and edge" of the issue.
 */
const { fake } = await vi.hoisted(async () => {
  const { startFakeStripe } = await import('#dev/fake-stripe/index.ts');
  const started = await startFakeStripe({ webhookRetryDelaysMs: [100, 300, 1000, 2000] });
  process.env.STRIPE_API_BASE = started.url;
  process.env.STRIPE_TIMEOUT_MS = '1000';
  process.env.PROJECT_CACHE_TTL_SECONDS = '0';
  return { fake: started };
});

const server = useLocalServer();
let api: ApiClient;
let reader: ApiClient;
let shop: { slug: string; shareId: string };
let basic: { id: number };
let pro: { id: number };
let team: { id: number };
let free: { id: number };
let hidden: { id: number };
const stripeKey = `sk_test_${'c'.repeat(24)}`;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let webhookSecret: string;

beforeAll(async () => {
  const owner = await newOwner('changes');
  api = server.client(owner.writeKey);
  reader = server.client(owner.readKey);
  shop = await makeProject(api, {
    paymentSecretKey: stripeKey,
    checkoutTestSuccessUrl: 'https://shop.example/ok',
    checkoutTestCancelUrl: 'https://shop.example/pricing',
    annualDiscountEnabled: true,
    annualDiscount: 0.2,
  });
  const endpoint = await fetch(`${fake.url}/v1/webhook_endpoints`, {
    method: 'POST',
    headers: { authorization: `Bearer ${stripeKey}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ url: `${server.url}/api/payments/webhook/${shop.shareId}`, 'enabled_events[]': '*' }),
  }).then((r) => r.json() as Promise<{ secret: string }>);
  webhookSecret = endpoint.secret;
  expect((await api.put(`/api/v1/projects/${shop.slug}`, { paymentWebhookSecret: endpoint.secret })).status).toBe(200);
  basic = await makePlan(api, shop.slug, { name: 'Basic', basePrice: 10 });
  pro = await makePlan(api, shop.slug, { name: 'Pro', basePrice: 30 });
  team = await makePlan(api, shop.slug, {
    name: 'Team',
    basePrice: 20,
    isPerUserPricing: true,
    perUserMultiplier: 0.5,
  });
  free = await makePlan(api, shop.slug, { name: 'Free', isFree: true });
  hidden = await makePlan(api, shop.slug, { name: 'Deal', basePrice: 5, isVisible: false });
  receiver = await startReceiver();
  const hook = await api.post(`/api/v1/projects/${shop.slug}/webhook-endpoints`, { url: `${receiver.url}/shop` });
  expect(hook.status, hook.text).toBe(201);
  receiver.trust(hook.body.secret);
  return async () => {
    await fake.close();
    await receiver.close();
  };
}, 60_000);

const customers = () => `/api/v1/projects/${shop.slug}/customers`;
const customer = async (id: string) => (await api.get(`${customers()}/${id}`)).body;

/** A paid checkout of `planId` by `customerId`, its webhooks applied. */
async function buy(customerId: string, planId: number, body: Record<string, unknown> = {}): Promise<FakeSubscription> {
  const session = await server
    .client()
    .post('/api/payments/checkout', { shareId: shop.shareId, planId, customerId, ...body });
  expect(session.status, session.text).toBe(200);
  fake.complete(session.body.sessionId);
  await fake.webhooksSettled();
  const stored = await customer(customerId);
  expect(stored.subscription).toMatchObject({ planId, source: 'stripe' });
  const subscription = fake.subscriptions.get(stored.subscription.stripeSubscriptionId);
  if (!subscription) throw new Error('no subscription at the fake');
  return subscription;
}

/**
 * The proration the fake documents (dev/fake-stripe/invoices.ts), computed here on its own:
 * credit the old price and charge the new one for the part of the period left at `at`.
 */
function expectedProration(subscription: FakeSubscription, oldMinor: number, newMinor: number, at: number) {
  const item = subscription.items.data[0];
  if (!item) throw new Error('no item');
  const span = item.current_period_end - item.current_period_start;
  const left = Math.max(0, Math.min(1, (item.current_period_end - at) / span));
  return (-Math.round(oldMinor * item.quantity * left) + Math.round(newMinor * item.quantity * left)) / 100;
}

const subscriptionFields = (view: any) => {
  const { planId, planVersion, pendingPlanId, pendingVersion, status, seats, billingInterval, cancelAtPeriodEnd } =
    view.subscription;
  return { planId, planVersion, pendingPlanId, pendingVersion, status, seats, billingInterval, cancelAtPeriodEnd };
};

describe('Stripe-sourced subscriptions change at Stripe', () => {
  test('an upgrade previews its proration, changes at once, and the webhook that follows changes nothing more', async () => {
    const subscription = await buy('up', basic.id);
    const before = Math.floor(Date.now() / 1000);
    const preview = await reader.post(`${customers()}/up/subscription/preview`, { planId: pro.id });
    const after = Math.floor(Date.now() / 1000);
    expect(preview.status, preview.text).toBe(200);
    expect(preview.body).toMatchObject({ currency: 'USD', nextPeriodAmount: 30 });
    expect(preview.body.lines).toHaveLength(2);
    const low = expectedProration(subscription, 1000, 3000, after);
    const high = expectedProration(subscription, 1000, 3000, before);
    expect(preview.body.amountDue).toBeGreaterThanOrEqual(low - 0.01);
    expect(preview.body.amountDue).toBeLessThanOrEqual(high + 0.01);
    expect(preview.body.amountDue).toBeCloseTo(
      preview.body.lines.reduce((sum: number, line: { amount: number }) => sum + line.amount, 0),
      2,
    );
    // A preview changes nothing.
    expect(fake.subscriptions.get(subscription.id)?.items.data[0]?.price.unit_amount).toBe(1000);

    const changed = await api.post(`${customers()}/up/subscription`, { planId: pro.id });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body.subscription).toMatchObject({
      planId: pro.id,
      planVersion: 1,
      pendingPlanId: null,
      status: 'active',
      billingInterval: 'month',
    });
    const atStripe = fake.subscriptions.get(subscription.id);
    expect(atStripe?.items.data[0]?.price.unit_amount).toBe(3000);
    expect(atStripe?.metadata).toMatchObject({ planId: String(pro.id), planVersion: '1' });
    const update = fake.requests.findLast(
      (r) => r.method === 'POST' && r.path === `/v1/subscriptions/${subscription.id}`,
    );
    expect(update?.body).toMatchObject({ proration_behavior: 'create_prorations' });
    await fake.webhooksSettled();
    expect(subscriptionFields(await customer('up'))).toEqual(subscriptionFields(changed.body));
  });

  test("events to the owner's app: one subscription.updated per change, none for the webhook that follows, canceled at the end", async () => {
    const eventsOf = () =>
      receiver
        .on('/shop')
        .filter((r) => r.body.data?.customerId === 'evented')
        .map((r) => r.body.type);
    await buy('evented', basic.id);
    await eventually(eventsOf, (types) => types.includes('subscription.created'));
    expect((await api.post(`${customers()}/evented/subscription`, { planId: pro.id })).status).toBe(200);
    await fake.webhooksSettled();
    expect((await api.post(`${customers()}/evented/subscription/cancel`, { atPeriodEnd: false })).status).toBe(200);
    await fake.webhooksSettled();
    await eventually(eventsOf, (list) => list.includes('subscription.canceled'));
    // (The checkout's own events may add an update that fills in the interval: not this change's.)
    const mine = receiver
      .on('/shop')
      .filter((r) => r.body.data?.customerId === 'evented' && r.body.data.subscription?.planId === pro.id);
    expect(mine.map((r) => r.body.type)).toEqual(['subscription.updated', 'subscription.canceled']);
    expect(mine[0]?.body.data.subscription).toMatchObject({ planId: pro.id, planVersion: 1, status: 'active' });
    expect(mine.every((r) => r.verifiedWith)).toBe(true);
  });

  test('an event from before the change, delivered after it, changes nothing (out of order)', async () => {
    const subscription = await buy('late', basic.id);
    const changed = await api.post(`${customers()}/late/subscription`, { planId: pro.id });
    expect(changed.status, changed.text).toBe(200);
    await fake.webhooksSettled();
    const project = (await api.get(`/api/v1/projects/${shop.slug}`)).body;
    const old = stripeEvent(
      'customer.subscription.updated',
      subscriptionObject({ id: subscription.id, projectId: project.id, planId: basic.id, customerId: 'late' }),
      { created: Math.floor(Date.now() / 1000) - 60 },
    );
    const late = await deliver(server.client(), shop.shareId, old, webhookSecret);
    expect(late.body).toMatchObject({ received: true, outcome: 'stale' });
    expect((await customer('late')).subscription).toMatchObject({ planId: pro.id });
  });

  test('a downgrade waits for the period end (pending plan, nothing owed now); the renewal takes it', async () => {
    const subscription = await buy('down', pro.id);
    const preview = await reader.post(`${customers()}/down/subscription/preview`, { planId: basic.id });
    expect(preview.body).toEqual({ amountDue: 0, currency: 'USD', nextPeriodAmount: 10, lines: [] });
    const changed = await api.post(`${customers()}/down/subscription`, { planId: basic.id });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body.subscription).toMatchObject({ planId: pro.id, pendingPlanId: basic.id, pendingVersion: 1 });
    const update = fake.requests.findLast(
      (r) => r.method === 'POST' && r.path === `/v1/subscriptions/${subscription.id}`,
    );
    expect(update?.body).toMatchObject({ proration_behavior: 'none' });
    await fake.webhooksSettled();
    expect(subscriptionFields(await customer('down'))).toEqual(subscriptionFields(changed.body));
    // Whole seconds: the renewal is a later event than the update.
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    fake.renewSubscription(subscription.id);
    await fake.webhooksSettled();
    expect((await customer('down')).subscription).toMatchObject({ planId: basic.id, pendingPlanId: null });
  });

  test('a change at period end keeps the seats it pays for until the renewal; the next decision counts them', async () => {
    const subscription = await buy('team-down', team.id, { seats: 3 });
    // Team × 3 is 20 × (1 + 2 × 0.5) = 40 a month; Pro's 30 is a downgrade, at period end.
    const changed = await api.post(`${customers()}/team-down/subscription`, { planId: pro.id });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body.subscription).toMatchObject({ planId: team.id, seats: 3, pendingPlanId: pro.id });
    expect(changed.body.subscription).not.toHaveProperty('pendingSeats');
    await fake.webhooksSettled();
    expect((await customer('team-down')).subscription).toMatchObject({ planId: team.id, seats: 3 });
    // Team × 2 (30) is a downgrade from the 3 seats held: nothing owed now.
    const preview = await reader.post(`${customers()}/team-down/subscription/preview`, { planId: team.id, seats: 2 });
    expect(preview.body).toEqual({ amountDue: 0, currency: 'USD', nextPeriodAmount: 30, lines: [] });
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    fake.renewSubscription(subscription.id);
    await fake.webhooksSettled();
    expect((await customer('team-down')).subscription).toMatchObject({
      planId: pro.id,
      seats: 1,
      pendingPlanId: null,
      pendingVersion: null,
    });
  });

  test('seats and interval: a per-user plan takes seats; a yearly switch is charged now', async () => {
    const subscription = await buy('seats', team.id, { seats: 2 });
    const more = await api.post(`${customers()}/seats/subscription`, { planId: team.id, seats: 4 });
    expect(more.status, more.text).toBe(200);
    expect(more.body.subscription).toMatchObject({ planId: team.id, seats: 4 });
    expect(fake.subscriptions.get(subscription.id)?.items.data[0]?.price.unit_amount).toBe(5000);
    expect(fake.subscriptions.get(subscription.id)?.metadata.seats).toBe('4');
    await fake.webhooksSettled();
    expect((await customer('seats')).subscription).toMatchObject({ seats: 4 });
    const yearly = await api.post(`${customers()}/seats/subscription`, {
      planId: team.id,
      seats: 4,
      billingInterval: 'year',
    });
    expect(yearly.status, yearly.text).toBe(200);
    expect(yearly.body.subscription).toMatchObject({ billingInterval: 'year' });
    // 20 × (1 + 3 × 0.5) a month, × 12 × 0.8 a year.
    expect(fake.subscriptions.get(subscription.id)?.items.data[0]?.price.unit_amount).toBe(48000);
    const periodEnd = await api.post(`${customers()}/seats/subscription`, {
      planId: team.id,
      billingInterval: 'month',
      at: 'period_end',
    });
    expect(periodEnd.status).toBe(400);
  });

  test('cancel at period end, resume, cancel now; a canceled subscription cannot change', async () => {
    const subscription = await buy('leaver', basic.id);
    expect((await api.post(`${customers()}/leaver/subscription/resume`)).status).toBe(409);
    const cancel = await api.post(`${customers()}/leaver/subscription/cancel`, {});
    expect(cancel.status, cancel.text).toBe(200);
    expect(cancel.body.subscription).toMatchObject({ cancelAtPeriodEnd: true, status: 'active' });
    expect(fake.subscriptions.get(subscription.id)?.cancel_at_period_end).toBe(true);
    const resume = await api.post(`${customers()}/leaver/subscription/resume`);
    expect(resume.status, resume.text).toBe(200);
    expect(resume.body.subscription).toMatchObject({ cancelAtPeriodEnd: false });
    expect(fake.subscriptions.get(subscription.id)?.cancel_at_period_end).toBe(false);
    const now = await api.post(`${customers()}/leaver/subscription/cancel`, { atPeriodEnd: false });
    expect(now.status, now.text).toBe(200);
    expect(now.body.subscription).toMatchObject({ status: 'canceled' });
    expect(fake.subscriptions.get(subscription.id)?.status).toBe('canceled');
    await fake.webhooksSettled();
    expect((await customer('leaver')).subscription).toMatchObject({ status: 'canceled' });
    for (const [path, body] of [
      ['/subscription', { planId: pro.id }],
      ['/subscription/preview', { planId: pro.id }],
      ['/subscription/cancel', {}],
      ['/subscription/resume', undefined],
    ] as const) {
      const res = await api.post(`${customers()}/leaver${path}`, body);
      expect(res.status, path).toBe(409);
    }
  });

  test("a cancel's event delivered after a resume of the same second leaves it resumed; a deletion of that second still ends it", async () => {
    const subscription = await buy('waverer', basic.id);
    const project = (await api.get(`/api/v1/projects/${shop.slug}`)).body;
    // Cancel and resume inside one second, so Stripe's events of both carry the same `created`.
    let second = 0;
    for (let tries = 0; tries < 5 && second === 0; tries++) {
      expect((await api.post(`${customers()}/waverer/subscription/cancel`, {})).status).toBe(200);
      const before = Math.floor(Date.now() / 1000);
      const resume = await api.post(`${customers()}/waverer/subscription/resume`);
      expect(resume.status, resume.text).toBe(200);
      if (Math.floor(Date.now() / 1000) === before) second = before;
    }
    expect(second).not.toBe(0);
    await fake.webhooksSettled();
    const object = (options: Partial<SubscriptionOptions>) =>
      subscriptionObject({
        id: subscription.id,
        projectId: project.id,
        planId: basic.id,
        customerId: 'waverer',
        customer: subscription.customer as string,
        ...options,
      });
    const cancelEvent = stripeEvent('customer.subscription.updated', object({ cancelAtPeriodEnd: true }), {
      created: second,
    });
    expect((await deliver(server.client(), shop.shareId, cancelEvent, webhookSecret)).status).toBe(200);
    expect((await customer('waverer')).subscription).toMatchObject({ cancelAtPeriodEnd: false, status: 'active' });
    const ended = stripeEvent('customer.subscription.deleted', object({ status: 'canceled' }), { created: second });
    expect((await deliver(server.client(), shop.shareId, ended, webhookSecret)).status).toBe(200);
    expect((await customer('waverer')).subscription).toMatchObject({ status: 'canceled' });
  });

  test('a free target cancels the paid subscription at period end', async () => {
    const subscription = await buy('to-free', basic.id);
    const preview = await reader.post(`${customers()}/to-free/subscription/preview`, { planId: free.id });
    expect(preview.body).toMatchObject({ amountDue: 0, nextPeriodAmount: 0 });
    const changed = await api.post(`${customers()}/to-free/subscription`, { planId: free.id });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body.subscription).toMatchObject({ planId: basic.id, cancelAtPeriodEnd: true });
    expect(fake.subscriptions.get(subscription.id)?.cancel_at_period_end).toBe(true);
  });

  test('the billing portal: a session of the Stripe customer; its page switches plans and sends the webhook', async () => {
    const subscription = await buy('portal', basic.id);
    const portal = await api.post(`${customers()}/portal/portal`, { returnUrl: 'https://shop.example/account' });
    expect(portal.status, portal.text).toBe(200);
    expect(portal.body.url).toMatch(new RegExp(`^${fake.url}/portal/bps_`));
    const page = await fetch(portal.body.url);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('https://shop.example/account');
    const switched = await fetch(`${portal.body.url}/subscriptions/${subscription.id}/plan`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ planId: String(pro.id), unitAmount: '3000' }),
      redirect: 'manual',
    });
    expect(switched.status).toBe(303);
    await fake.webhooksSettled();
    expect((await customer('portal')).subscription).toMatchObject({ planId: pro.id, planVersion: 1 });
  });

  test('the same through a customer token: preview, change at Stripe, portal', async () => {
    const subscription = await buy('visitor', basic.id);
    const { token } = (await api.post(`${customers()}/visitor/token`)).body;
    const visitor = server.client();
    const bearer = { headers: { authorization: `Bearer ${token}` } };
    const shareId = shop.shareId;
    const preview = await visitor.post('/api/payments/subscription/preview', { shareId, planId: pro.id }, bearer);
    expect(preview.status, preview.text).toBe(200);
    expect(preview.body.amountDue).toBeGreaterThan(0);
    const changed = await visitor.post('/api/payments/subscription', { shareId, planId: pro.id }, bearer);
    expect(changed.body).toMatchObject({ customerId: 'visitor', planId: pro.id, status: 'active' });
    expect(fake.subscriptions.get(subscription.id)?.items.data[0]?.price.unit_amount).toBe(3000);
    // A hidden plan is not on the page: the visitor cannot name it.
    expect((await visitor.post('/api/payments/subscription', { shareId, planId: hidden.id }, bearer)).status).toBe(404);
    const portal = await visitor.post(
      '/api/payments/portal',
      { shareId, returnUrl: 'https://shop.example/me' },
      bearer,
    );
    expect(portal.status, portal.text).toBe(200);
    expect(portal.body.url).toMatch(/\/portal\/bps_/);
    await fake.webhooksSettled();
    expect((await customer('visitor')).subscription).toMatchObject({ planId: pro.id });
  });

  test('Stripe failing is a 502 and changes nothing here', async () => {
    await buy('fails', basic.id);
    const before = await customer('fails');
    // The SDK retries a 5xx once: both attempts fail.
    fake.failNext({ status: 500 }, 2);
    const res = await api.post(`${customers()}/fails/subscription`, { planId: pro.id });
    expect(res.status, res.text).toBe(502);
    expect(res.body.error.code).toBe('payment_provider_error');
    const after = await customer('fails');
    expect(after.subscription).toEqual(before.subscription);
    // And the next change is not blocked by the failed one.
    const retry = await api.post(`${customers()}/fails/subscription`, { planId: pro.id });
    expect(retry.status, retry.text).toBe(200);
  });

  test('concurrent changes of one customer: one wins, the other is a 409, nothing half-written', async () => {
    await buy('racer', basic.id);
    // The first change's Stripe call hangs one attempt (1 s) then succeeds on the SDK's retry.
    fake.hangNext(1);
    const first = api.post(`${customers()}/racer/subscription`, { planId: pro.id });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const second = await api.post(`${customers()}/racer/subscription`, { planId: team.id });
    expect(second.status, second.text).toBe(409);
    expect((await first).status).toBe(200);
    await fake.webhooksSettled();
    expect((await customer('racer')).subscription).toMatchObject({ planId: pro.id });
  }, 20_000);
});

describe('manual subscriptions change here', () => {
  test('preview owes 0; a change is at once without a period end, pending with one', async () => {
    expect((await api.put(`${customers()}/hand`, { planId: pro.id })).status).toBe(200);
    const preview = await reader.post(`${customers()}/hand/subscription/preview`, { planId: basic.id });
    expect(preview.body).toEqual({ amountDue: 0, currency: 'USD', nextPeriodAmount: 10, lines: [] });
    const changed = await api.post(`${customers()}/hand/subscription`, { planId: basic.id });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body.subscription).toMatchObject({ planId: basic.id, source: 'manual', pendingPlanId: null });
    expect(
      (await api.put(`${customers()}/hand-later`, { planId: pro.id, currentPeriodEnd: '2040-01-01T00:00:00Z' })).status,
    ).toBe(200);
    const later = await api.post(`${customers()}/hand-later/subscription`, { planId: basic.id });
    expect(later.body.subscription).toMatchObject({ planId: pro.id, pendingPlanId: basic.id });
    // A hidden plan can be granted by the owner.
    const deal = await api.post(`${customers()}/hand/subscription`, { planId: hidden.id, at: 'now' });
    expect(deal.body.subscription).toMatchObject({ planId: hidden.id });
    const cancel = await api.post(`${customers()}/hand/subscription/cancel`, { atPeriodEnd: false });
    expect(cancel.body.subscription).toMatchObject({ status: 'canceled' });
  });

  test('a change at period end keeps the seats until the period ends, and the next decision counts them', async () => {
    const end = new Date(Date.now() + 2_500).toISOString();
    const granted = await api.put(`${customers()}/hand-seats`, { planId: team.id, seats: 3, currentPeriodEnd: end });
    expect(granted.status, granted.text).toBe(200);
    // Team × 2 (30 a month) is a downgrade from Team × 3 (40): it waits for the period end.
    const fewer = await api.post(`${customers()}/hand-seats/subscription`, { planId: team.id, seats: 2 });
    expect(fewer.status, fewer.text).toBe(200);
    expect(fewer.body.subscription).toMatchObject({ planId: team.id, seats: 3, pendingPlanId: team.id });
    // So is Pro (30): set after it, it is the change that waits.
    const pro3 = await api.post(`${customers()}/hand-seats/subscription`, { planId: pro.id });
    expect(pro3.status, pro3.text).toBe(200);
    expect(pro3.body.subscription).toMatchObject({ planId: team.id, seats: 3, pendingPlanId: pro.id });
    expect(pro3.body.subscription).not.toHaveProperty('pendingSeats');
    expect((await customer('hand-seats')).subscription).toMatchObject({ planId: team.id, seats: 3 });
    await new Promise((resolve) => setTimeout(resolve, Date.parse(end) - Date.now() + 50));
    expect((await customer('hand-seats')).subscription).toMatchObject({
      planId: pro.id,
      seats: 1,
      pendingPlanId: null,
      pendingVersion: null,
    });
  });

  test('a cancel at period end ends the subscription when its period ends; a resume before keeps it', async () => {
    const end = new Date(Date.now() + 2_000).toISOString();
    for (const id of ['hand-ends', 'hand-stays']) {
      expect((await api.put(`${customers()}/${id}`, { planId: pro.id, currentPeriodEnd: end })).status).toBe(200);
      const cancel = await api.post(`${customers()}/${id}/subscription/cancel`, {});
      expect(cancel.body.subscription).toMatchObject({ status: 'active', cancelAtPeriodEnd: true });
    }
    expect((await api.post(`${customers()}/hand-stays/subscription/resume`)).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, Date.parse(end) - Date.now() + 50));
    expect((await customer('hand-ends')).subscription).toMatchObject({ status: 'canceled' });
    expect((await customer('hand-stays')).subscription).toMatchObject({ status: 'active', cancelAtPeriodEnd: false });
    expect((await api.post(`${customers()}/hand-ends/subscription/resume`)).status).toBe(409);
  });

  test('bad input and edges', async () => {
    expect((await api.put(`${customers()}/edge`, { planId: basic.id })).status).toBe(200);
    const post = (path: string, body?: unknown) => api.post(`${customers()}${path}`, body);
    expect((await post('/edge/subscription', { planId: basic.id })).status).toBe(409);
    const seats = await post('/edge/subscription', { planId: pro.id, seats: 3 });
    expect(seats.status).toBe(400);
    expect(seats.body.error.details[0].path).toBe('seats');
    expect((await post('/edge/subscription', { planId: 999_999 })).status).toBe(404);
    expect((await post('/nobody/subscription', { planId: basic.id })).status).toBe(404);
    expect((await post('/edge/subscription', { planId: basic.id, at: 'soon' })).status).toBe(400);
    expect((await post('/edge/subscription', { plan: basic.id })).status).toBe(400);
    // A manual customer has no Stripe customer: no portal.
    expect((await post('/edge/portal', {})).status).toBe(409);
    expect((await post('/edge/portal', { returnUrl: 'javascript:alert(1)' })).status).toBe(400);
    // A read key previews but does not change.
    expect((await reader.post(`${customers()}/edge/subscription`, { planId: pro.id })).status).toBe(403);
  });
});
