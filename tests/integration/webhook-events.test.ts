import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { createWebhookEndpoint } from '#dev/webhook-endpoint.ts';
import { type ApiClient, newOwner, useLocalServer } from '../fixtures/api.ts';
import { makeFeature, makePlan, makeProject } from '../fixtures/factories.ts';
import { deliver, newWebhookSecret, signature, stripeEvent, subscriptionObject } from '../fixtures/stripe-events.ts';

/**
 * Stripe stamps events in whole seconds and delivers them in any order: events of one
 * subscription in one second merge, whichever arrives first. And a signed body that is no
 * event is a 400, never a 500.
 */

// The fake Stripe must exist before the handlers read STRIPE_API_BASE at load.
const { fake } = await vi.hoisted(async () => {
  const { startFakeStripe } = await import('#dev/fake-stripe/index.ts');
  const started = await startFakeStripe();
  process.env.STRIPE_API_BASE = started.url;
  process.env.PROJECT_CACHE_TTL_SECONDS = '0';
  return { fake: started };
});

const server = useLocalServer();
let api: ApiClient;
let visitor: ApiClient;
let project: { slug: string; shareId: string; id: number };
let pro: { id: number };
let secret: string;
let base: string;

beforeAll(async () => {
  const owner = await newOwner('webhook-events');
  api = server.client(owner.writeKey);
  visitor = server.client();
  project = await makeProject(api);
  base = `/api/v1/projects/${project.slug}/customers`;
  const feature = await makeFeature(api, project.slug, { name: 'Reports' });
  pro = await makePlan(api, project.slug, { name: 'Pro', basePrice: 29, features: [{ featureId: feature.id }] });
  secret = newWebhookSecret();
  expect((await api.put(`/api/v1/projects/${project.slug}`, { paymentWebhookSecret: secret })).status).toBe(200);
});

afterAll(async () => {
  await fake.close();
});

const T = 1_800_000_000;

/** A completed checkout of `subscription` for `customerId`, as our checkout makes it. */
function sessionCompleted(customerId: string, subscription: string, created: number) {
  return stripeEvent(
    'checkout.session.completed',
    {
      id: `cs_test_${customerId}`,
      object: 'checkout.session',
      mode: 'subscription',
      payment_status: 'no_payment_required',
      client_reference_id: customerId,
      customer: `cus_${customerId}`,
      customer_details: { email: `${customerId}@example.com` },
      subscription,
      metadata: { projectId: String(project.id), planId: String(pro.id), customerId },
    },
    { created },
  );
}

function subscriptionEvent(type: string, customerId: string, created: number, options: object = {}) {
  const object = subscriptionObject({
    projectId: project.id,
    planId: pro.id,
    customerId,
    id: `sub_${customerId}`,
    status: 'trialing',
    interval: 'year',
    periodStart: T,
    periodEnd: T + 14 * 86400,
    ...options,
  });
  return stripeEvent(type, object, { created });
}

const outcome = async (event: unknown) => {
  const answer = await deliver(visitor, project.shareId, event, secret);
  expect(answer.status, answer.text).toBe(200);
  return answer.body.outcome as string;
};

const subscriptionOf = async (customerId: string) => (await api.get(`${base}/${customerId}`)).body.subscription;

const fromSubscription = {
  planId: expect.any(Number),
  status: 'trialing',
  billingInterval: 'year',
  currentPeriodStart: new Date(T * 1000).toISOString(),
  currentPeriodEnd: new Date((T + 14 * 86400) * 1000).toISOString(),
  stripeSubscriptionId: expect.stringMatching(/^sub_/),
};

describe('events of one subscription in one second merge, in either order', () => {
  test('checkout.session.completed, then customer.subscription.created: the subscription fills the period and interval', async () => {
    expect(await outcome(sessionCompleted('first-session', 'sub_first-session', T))).toBe('applied');
    expect(await subscriptionOf('first-session')).toMatchObject({ billingInterval: null, currentPeriodStart: null });
    expect(await outcome(subscriptionEvent('customer.subscription.created', 'first-session', T))).toBe('applied');
    expect(await subscriptionOf('first-session')).toMatchObject(fromSubscription);
  });

  test('customer.subscription.created, then checkout.session.completed: the same subscription, and the e-mail', async () => {
    expect(await outcome(subscriptionEvent('customer.subscription.created', 'first-sub', T))).toBe('applied');
    expect(await outcome(sessionCompleted('first-sub', 'sub_first-sub', T))).toBe('applied');
    const customer = (await api.get(`${base}/first-sub`)).body;
    expect(customer).toMatchObject({ email: 'first-sub@example.com', subscription: fromSubscription });
  });

  test('an update that lacks the period keeps its own fields when the creation arrives after it, which fills the period', async () => {
    const update = subscriptionEvent('customer.subscription.updated', 'update-first', T, {
      status: 'active',
      cancelAtPeriodEnd: true,
      metadata: { seats: '3' },
    });
    (update.data.object.items as { data: unknown[] }).data = [];
    expect(await outcome(update)).toBe('applied');
    expect(await outcome(subscriptionEvent('customer.subscription.created', 'update-first', T))).toBe('applied');
    expect(await subscriptionOf('update-first')).toMatchObject({
      ...fromSubscription,
      status: 'active',
      seats: 3,
      cancelAtPeriodEnd: true,
    });
  });

  test('nothing newer is overwritten by older data: a creation after an update of the same second is stale', async () => {
    const update = subscriptionEvent('customer.subscription.updated', 'older-data', T, {
      status: 'active',
      quantity: 4,
    });
    expect(await outcome(update)).toBe('applied');
    expect(await outcome(subscriptionEvent('customer.subscription.created', 'older-data', T))).toBe('stale');
    expect(await subscriptionOf('older-data')).toMatchObject({ status: 'active', seats: 4 });
  });

  test('nothing of the same second undoes a cancellation', async () => {
    expect(await outcome(subscriptionEvent('customer.subscription.deleted', 'ended', T))).toBe('applied');
    const update = subscriptionEvent('customer.subscription.updated', 'ended', T, { status: 'active' });
    expect(await outcome(update)).toBe('stale');
    expect(await outcome(sessionCompleted('ended', 'sub_ended', T))).toBe('applied');
    expect(await subscriptionOf('ended')).toMatchObject({ status: 'canceled' });
  });

  test('a checkout paid on the fake Stripe leaves the customer with the subscription’s interval and period', async () => {
    const key = `sk_test_events${'x'.repeat(20)}`;
    const { webhookUrl } = (await api.get(`/api/v1/projects/${project.slug}`)).body as { webhookUrl: string };
    const endpointSecret = await createWebhookEndpoint(fake.url, key, webhookUrl);
    const put = await api.put(`/api/v1/projects/${project.slug}`, {
      paymentSecretKey: key,
      paymentWebhookSecret: endpointSecret,
      checkoutTestSuccessUrl: 'https://shop.example/thanks',
      checkoutTestCancelUrl: 'https://shop.example/pricing',
    });
    expect(put.status, put.text).toBe(200);
    // The project's signing secret is now the fake's endpoint's.
    secret = endpointSecret;
    const checkout = await visitor.post('/api/payments/checkout', {
      shareId: project.shareId,
      planId: pro.id,
      billingInterval: 'year',
      customerId: 'paid-on-fake',
    });
    expect(checkout.status, checkout.text).toBe(200);
    fake.complete(checkout.body.sessionId);
    await fake.webhooksSettled();
    const created = fake.deliveries.filter((d) => d.url === webhookUrl).map((d) => d.type);
    expect(created).toEqual(['checkout.session.completed', 'customer.subscription.created']);
    const subscription = await subscriptionOf('paid-on-fake');
    expect(subscription).toMatchObject({ planId: pro.id, status: 'active', billingInterval: 'year' });
    expect(subscription.currentPeriodStart).toEqual(expect.any(String));
    expect(subscription.currentPeriodEnd).toEqual(expect.any(String));
  });
});

describe('a correctly signed body that is no event', () => {
  test.each(['null', '[]', '5', '"evt_1"', 'true', '{}', '{"id":"evt_1","type":"x"}'])(
    '%s is a 400 invalid_signature with the error body',
    async (payload) => {
      const answer = await visitor.request('POST', `/api/payments/webhook/${project.shareId}`, {
        rawBody: payload,
        headers: { 'content-type': 'application/json', 'stripe-signature': signature(payload, secret) },
      });
      expect(answer.status, answer.text).toBe(400);
      expect(answer.body).toEqual({
        error: { code: 'invalid_signature', message: 'The signed payload is not a Stripe event.' },
      });
    },
  );
});
