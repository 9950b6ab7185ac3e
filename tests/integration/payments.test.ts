import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { readFeatureDetails } from '#domain/payments/feature-details.ts';
import { ReceiptView } from '#domain/payments/schemas.ts';
import { setLogSink } from '#shared/logger.ts';
import { ApiClient, type ApiResponse, newOwner, type RequestOptions, useLocalServer } from '../fixtures/api.ts';
import { makeFeature, makePlan, makeProject } from '../fixtures/factories.ts';
import { itemsOfOwner } from '../fixtures/table.ts';

// The fake Stripe server must exist before the handlers read STRIPE_API_BASE at load.
const { fake } = await vi.hoisted(async () => {
  const { startFakeStripe } = await import('#dev/fake-stripe/index.ts');
  const started = await startFakeStripe();
  process.env.STRIPE_API_BASE = started.url;
  process.env.STRIPE_TIMEOUT_MS = '1000';
  process.env.LOG_LEVEL = 'debug';
  return { fake: started };
});

/** Every response body and log line of this file, searched for secrets at the end. */
const seen: string[] = [];
const secrets = new Set<string>();

class RecordingClient extends ApiClient {
  override withKey(key: string | null) {
    return new RecordingClient(this.baseUrl, key);
  }
  override async request<T = any>(method: string, path: string, options?: RequestOptions): Promise<ApiResponse<T>> {
    const response = await super.request<T>(method, path, options);
    seen.push(`${method} ${path} → ${response.status} ${response.text}`);
    return response;
  }
}

const testKey = (label = '') => {
  const key = `sk_test_${label}${randomBytes(24).toString('hex')}`;
  secrets.add(key);
  return key;
};

const server = useLocalServer();
let api: ApiClient;
let visitor: ApiClient;
let restoreSink: () => void;
let ownerId: string;

const TEST_SUCCESS = 'https://acme.example/thanks?ref=pricing';
const TEST_CANCEL = 'https://acme.example/pricing?cancelled=1';
const LIVE_SUCCESS = 'https://acme.example/live-thanks';
const LIVE_CANCEL = 'https://acme.example/live-pricing';
const urls = {
  checkoutTestSuccessUrl: TEST_SUCCESS,
  checkoutTestCancelUrl: TEST_CANCEL,
  checkoutSuccessUrl: LIVE_SUCCESS,
  checkoutCancelUrl: LIVE_CANCEL,
};

beforeAll(async () => {
  restoreSink = setLogSink((line) => seen.push(line));
  const owner = await newOwner('payments');
  ownerId = owner.ownerId;
  api = new RecordingClient(server.url, owner.writeKey);
  visitor = new RecordingClient(server.url, null);
});

afterAll(async () => {
  restoreSink();
  await fake.close();
});

/** A USD project with a test key, a 20% annual discount, and one plan of each kind. */
async function shop(overrides: Record<string, unknown> = {}) {
  const key = testKey();
  const project = await makeProject(api, {
    annualDiscount: 0.2,
    annualDiscountEnabled: true,
    paymentSecretKey: key,
    ...urls,
    ...overrides,
  });
  const [pro, team, free, hidden] = await Promise.all([
    makePlan(api, project.slug, { name: 'Pro', basePrice: 29, freemiumDay: 14 }),
    makePlan(api, project.slug, { name: 'Team', basePrice: 10, isPerUserPricing: true, perUserMultiplier: 0.5 }),
    makePlan(api, project.slug, { name: 'Free', isFree: true }),
    makePlan(api, project.slug, { name: 'Secret', basePrice: 99, isVisible: false }),
  ]);
  return { project, key, plans: { pro, team, free, hidden } };
}

/** What reached the fake Stripe for the last session create. */
function lastCreate() {
  const request = fake.lastSessionCreate();
  if (!request) throw new Error('no checkout session was created');
  return request as { apiKey: string; idempotencyKey?: string; body: any };
}

/** The request log line of a response, found by its request id. */
function logLineOf(response: ApiResponse) {
  const id = response.headers.get('x-request-id');
  const line = seen.find((text) => text.includes('"msg":"request"') && text.includes(`"requestId":"${id}"`));
  if (!line) throw new Error(`no log line for ${id}`);
  return JSON.parse(line);
}

const checkout = (body: Record<string, unknown>, options?: RequestOptions) =>
  visitor.post('/api/payments/checkout', body, options);
const customCheckout = (body: Record<string, unknown>, options?: RequestOptions) =>
  visitor.post('/api/payments/checkout/custom', body, options);
const receipt = (sessionId: string, shareId: string) =>
  visitor.get(
    `/api/payments/receipt?session_id=${encodeURIComponent(sessionId)}&shareId=${encodeURIComponent(shareId)}`,
  );

describe('the payment account on projects', () => {
  test('a key is write-only: responses say connected and the mode, never the key', async () => {
    const key = testKey();
    const project = await makeProject(api, { paymentSecretKey: key });
    expect(project).toMatchObject({ paymentsConnected: true, paymentsMode: 'test' });
    expect(JSON.stringify(project)).not.toContain(key);

    const got = await api.get(`/api/v1/projects/${project.slug}`);
    expect(got.body).toMatchObject({ paymentsConnected: true, paymentsMode: 'test' });
    const list = await api.get('/api/v1/projects');
    expect(list.body.projects.find((p: any) => p.id === project.id)).toMatchObject({
      paymentsConnected: true,
      paymentsMode: 'test',
    });
    const share = await visitor.get(`/api/share/${project.shareId}`);
    expect(share.body.paymentsConnected).toBe(true);

    const live = `rk_live_${randomBytes(20).toString('hex')}`;
    secrets.add(live);
    const switched = await api.put(`/api/v1/projects/${project.slug}`, { paymentSecretKey: live });
    expect(switched.body).toMatchObject({ paymentsConnected: true, paymentsMode: 'live' });

    const disconnected = await api.put(`/api/v1/projects/${project.slug}`, { paymentSecretKey: null });
    expect(disconnected.body).toMatchObject({ paymentsConnected: false, paymentsMode: null });
    expect((await visitor.get(`/api/share/${project.shareId}`)).body.paymentsConnected).toBe(false);
  });

  test('a project without a key is not connected, and other updates leave a key alone', async () => {
    const plain = await makeProject(api);
    expect(plain).toMatchObject({ paymentsConnected: false, paymentsMode: null });
    const { project } = await shop();
    const renamed = await api.put(`/api/v1/projects/${project.slug}`, { name: 'Renamed' });
    expect(renamed.body).toMatchObject({ name: 'Renamed', paymentsConnected: true, paymentsMode: 'test' });
  });

  test.each([
    ['a publishable key', `pk_test_${'a'.repeat(24)}`],
    ['an unknown prefix', `xx_test_${'a'.repeat(24)}`],
    ['no mode', `sk_${'a'.repeat(24)}`],
    ['too short', 'sk_test_abc'],
    ['spaces', `sk_test_${'a'.repeat(12)} ${'b'.repeat(12)}`],
    ['a number', 42],
  ])('refuses %s with a 400 that does not echo it', async (_label, value) => {
    const response = await api.post('/api/v1/projects', { name: 'Bad key', paymentSecretKey: value });
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('validation_error');
    expect(response.body.error.details[0].path).toBe('paymentSecretKey');
    if (typeof value === 'string') expect(response.text).not.toContain(value);
  });

  test('the key is stored sealed: the table never holds it in clear', async () => {
    const { key } = await shop();
    const items = JSON.stringify(await itemsOfOwner(ownerId));
    expect(items).toContain('paymentKeySealed');
    expect(items).not.toContain(key);
    expect(items).not.toContain(key.slice(8));
  });
});

describe('checkout for a plan', () => {
  test('a plan checks out at its price, under its name', async () => {
    const { project, plans } = await shop();
    const response = await checkout({ shareId: project.shareId, planId: plans.pro.id });
    expect(response.status, response.text).toBe(200);
    expect(lastCreate().body.line_items[0].price_data).toMatchObject({
      unit_amount: '2900',
      product_data: { name: 'Pro' },
    });
  });

  test('monthly: the plan price, its trial, both metadata and the test redirects reach Stripe', async () => {
    const { project, key, plans } = await shop();
    const response = await checkout({ shareId: project.shareId, planId: plans.pro.id });
    expect(response.status, response.text).toBe(200);
    expect(Object.keys(response.body).sort()).toEqual(['sessionId', 'url']);
    expect(response.body.sessionId).toMatch(/^cs_test_/);
    expect(response.body.url).toBe(`${fake.url}/pay/${response.body.sessionId}`);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(response.headers.get('cache-control')).toBe('no-store');

    const sent = lastCreate();
    expect(sent.apiKey).toBe(key);
    expect(sent.body).toMatchObject({
      mode: 'subscription',
      line_items: [
        {
          quantity: '1',
          price_data: {
            currency: 'usd',
            unit_amount: '2900',
            recurring: { interval: 'month' },
            product_data: { name: 'Pro' },
          },
        },
      ],
      subscription_data: {
        trial_period_days: '14',
        metadata: { planId: String(plans.pro.id), projectId: String(project.id) },
      },
      metadata: { planId: String(plans.pro.id), projectId: String(project.id) },
      success_url: `${TEST_SUCCESS}&session_id={CHECKOUT_SESSION_ID}`,
      cancel_url: TEST_CANCEL,
    });
    expect(sent.body.customer_email).toBeUndefined();
  });

  test('yearly with the annual discount: 29 × 12 × 0.8 = 278.40', async () => {
    const { project, plans } = await shop();
    const response = await checkout({
      shareId: project.shareId,
      planId: plans.pro.id,
      billingInterval: 'year',
      customerEmail: 'ada@example.com',
    });
    expect(response.status, response.text).toBe(200);
    const { body } = lastCreate();
    expect(body.line_items[0].price_data).toMatchObject({ unit_amount: '27840', recurring: { interval: 'year' } });
    expect(body.customer_email).toBe('ada@example.com');
  });

  test('yearly with the discount disabled: twelve full months', async () => {
    const { project, plans } = await shop({ annualDiscountEnabled: false });
    const response = await checkout({ shareId: project.shareId, planId: plans.pro.id, billingInterval: 'year' });
    expect(response.status, response.text).toBe(200);
    expect(lastCreate().body.line_items[0].price_data.unit_amount).toBe('34800');
  });

  test('per seat: 10 × (1 + 4 × 0.5) = 30 a month, 288 a discounted year, no trial', async () => {
    const { project, plans } = await shop();
    const monthly = await checkout({ shareId: project.shareId, planId: plans.team.id, seats: 5 });
    expect(monthly.status, monthly.text).toBe(200);
    expect(lastCreate().body.line_items[0].price_data.unit_amount).toBe('3000');
    expect(lastCreate().body.subscription_data.trial_period_days).toBeUndefined();
    expect(lastCreate().body.metadata.seats).toBe('5');

    const yearly = await checkout({
      shareId: project.shareId,
      planId: plans.team.id,
      seats: 5,
      billingInterval: 'year',
    });
    expect(yearly.status, yearly.text).toBe(200);
    expect(lastCreate().body.line_items[0].price_data.unit_amount).toBe('28800');

    const one = await checkout({ shareId: project.shareId, planId: plans.team.id });
    expect(one.status, one.text).toBe(200);
    expect(lastCreate().body.line_items[0].price_data.unit_amount).toBe('1000');
  });

  test('JPY has no minor unit: ¥1,500 is 1500, and a discounted year rounds to whole yen', async () => {
    const { project } = await shop({ currency: 'jpy', annualDiscount: 0.15 });
    const plan = await makePlan(api, project.slug, { name: 'Yen', basePrice: 1499 });
    const monthly = await checkout({ shareId: project.shareId, planId: plan.id });
    expect(monthly.status, monthly.text).toBe(200);
    expect(lastCreate().body.line_items[0].price_data).toMatchObject({ currency: 'jpy', unit_amount: '1499' });
    const yearly = await checkout({ shareId: project.shareId, planId: plan.id, billingInterval: 'year' });
    expect(yearly.status, yearly.text).toBe(200);
    // 1499 × 12 × 0.85 = 15289.8 → 15290
    expect(lastCreate().body.line_items[0].price_data.unit_amount).toBe('15290');
  });

  test('a live key uses the live redirect URLs', async () => {
    const key = `sk_live_${randomBytes(24).toString('hex')}`;
    secrets.add(key);
    const { project, plans } = await shop({ paymentSecretKey: key });
    const response = await checkout({ shareId: project.shareId, planId: plans.pro.id });
    expect(response.status, response.text).toBe(200);
    expect(response.body.sessionId).toMatch(/^cs_live_/);
    expect(lastCreate().body).toMatchObject({
      success_url: `${LIVE_SUCCESS}?session_id={CHECKOUT_SESSION_ID}`,
      cancel_url: LIVE_CANCEL,
    });
  });

  test('redirect URLs never come from the request: sending one is a 400, and nothing reaches Stripe', async () => {
    const { project, plans } = await shop();
    const before = fake.requests.length;
    const response = await checkout({
      shareId: project.shareId,
      planId: plans.pro.id,
      successUrl: 'https://evil.example/',
      success_url: 'https://evil.example/',
      cancelUrl: 'https://evil.example/',
    });
    expect(response.status, response.text).toBe(400);
    expect(response.body.error.details.map((detail: { path: string }) => detail.path)).toEqual([
      'successUrl',
      'success_url',
      'cancelUrl',
    ]);
    expect(fake.requests.length).toBe(before);
    const clean = await checkout({ shareId: project.shareId, planId: plans.pro.id });
    expect(clean.status, clean.text).toBe(200);
    expect(JSON.stringify(lastCreate().body)).not.toContain('evil.example');
  });

  test('refusals: free plan 400, hidden or unknown plan 404, unknown or inactive page 404', async () => {
    const { project, plans } = await shop();
    const before = fake.requests.length;
    const free = await checkout({ shareId: project.shareId, planId: plans.free.id });
    expect([free.status, free.body.error.code]).toEqual([400, 'validation_error']);
    const hidden = await checkout({ shareId: project.shareId, planId: plans.hidden.id });
    expect([hidden.status, hidden.body.error.code]).toEqual([404, 'not_found']);
    const unknown = await checkout({ shareId: project.shareId, planId: 999_999_999 });
    expect(unknown.status).toBe(404);
    const page = await checkout({ shareId: 'nosuchshareid0000000000000', planId: plans.pro.id });
    expect(page.status).toBe(404);
    const seatsOnFlat = await checkout({ shareId: project.shareId, planId: plans.pro.id, seats: 3 });
    expect([seatsOnFlat.status, seatsOnFlat.body.error.details[0].path]).toEqual([400, 'seats']);

    await api.put(`/api/v1/projects/${project.slug}`, { isActive: false });
    const inactive = await checkout({ shareId: project.shareId, planId: plans.pro.id });
    expect(inactive.status).toBe(404);
    expect(fake.requests.length).toBe(before);
  });

  test.each([
    ['no body', undefined],
    ['no shareId', { planId: 1 }],
    ['no planId', { shareId: 'x'.repeat(26) }],
    ['a string planId', { shareId: 'x'.repeat(26), planId: '1' }],
    ['a fractional planId', { shareId: 'x'.repeat(26), planId: 1.5 }],
    ['a bad interval', { shareId: 'x'.repeat(26), planId: 1, billingInterval: 'week' }],
    ['zero seats', { shareId: 'x'.repeat(26), planId: 1, seats: 0 }],
    ['fractional seats', { shareId: 'x'.repeat(26), planId: 1, seats: 2.5 }],
    ['a bad e-mail', { shareId: 'x'.repeat(26), planId: 1, customerEmail: 'not-an-email' }],
  ])('400 validation_error for %s', async (_label, body) => {
    const response = await checkout(body as Record<string, unknown>);
    expect(response.status, response.text).toBe(400);
    expect(response.body.error.code).toBe('validation_error');
  });

  test('409 payments_not_configured without a key, or without the redirect URLs of its mode', async () => {
    const { project, plans } = await shop({ paymentSecretKey: null });
    const none = await checkout({ shareId: project.shareId, planId: plans.pro.id });
    expect([none.status, none.body.error.code]).toEqual([409, 'payments_not_configured']);

    await api.put(`/api/v1/projects/${project.slug}`, { paymentSecretKey: testKey(), checkoutTestCancelUrl: null });
    const noUrl = await checkout({ shareId: project.shareId, planId: plans.pro.id });
    expect([noUrl.status, noUrl.body.error.code]).toEqual([409, 'payments_not_configured']);
    expect(noUrl.body.error.message).toContain('checkoutTestCancelUrl');
  });

  test('an Idempotency-Key goes to Stripe scoped to the project, and a repeat gets the same session', async () => {
    const { project, plans } = await shop();
    const headers = { 'idempotency-key': 'order-42' };
    const first = await checkout({ shareId: project.shareId, planId: plans.pro.id }, { headers });
    expect(first.status, first.text).toBe(200);
    expect(lastCreate().idempotencyKey).toBe(`project-${project.id}:order-42`);
    const again = await checkout({ shareId: project.shareId, planId: plans.pro.id }, { headers });
    expect(again.body.sessionId).toBe(first.body.sessionId);

    const other = await checkout({ shareId: project.shareId, planId: plans.team.id }, { headers });
    expect([other.status, other.body.error.code]).toEqual([409, 'conflict']);

    const tooLong = await checkout(
      { shareId: project.shareId, planId: plans.pro.id },
      { headers: { 'idempotency-key': 'k'.repeat(201) } },
    );
    expect(tooLong.status).toBe(400);
  });

  test('preflight allows the JSON body and the Idempotency-Key header from any origin', async () => {
    const response = await visitor.request('OPTIONS', '/api/payments/checkout', {
      headers: { origin: 'https://shop.example', 'access-control-request-method': 'POST' },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(response.headers.get('access-control-allow-headers')).toContain('Idempotency-Key');
  });
});

describe('checkout for a custom plan', () => {
  async function catalogue() {
    const setup = await shop();
    const { slug } = setup.project;
    const [events, sso, seats] = await Promise.all([
      makeFeature(api, slug, { name: 'Events', basePrice: 5, isCountable: true, usageCount: 1000, countPrice: 0.01 }),
      makeFeature(api, slug, { name: 'SSO', basePrice: 20 }),
      makeFeature(api, slug, { name: 'Seats', basePrice: 0, isCountable: true, usageCount: 3, countPrice: 4 }),
    ]);
    return { ...setup, features: { events, sso, seats } };
  }

  test('the visitor’s features and quantities, priced on the server, listed in metadata', async () => {
    const { project, features } = await catalogue();
    const response = await customCheckout({
      shareId: project.shareId,
      billingInterval: 'year',
      features: [
        { featureId: features.events.id, quantity: 5000 },
        { featureId: features.sso.id },
        { featureId: features.seats.id },
      ],
    });
    expect(response.status, response.text).toBe(200);
    // Monthly: (5 + 0.01 × 5000) + 20 + (0 + 4 × 3) = 87; a discounted year: 87 × 12 × 0.8 = 835.20
    const { body } = lastCreate();
    expect(body.line_items[0].price_data).toMatchObject({
      currency: 'usd',
      unit_amount: '83520',
      recurring: { interval: 'year' },
      product_data: { name: 'Custom plan' },
    });
    expect(body.metadata.projectId).toBe(String(project.id));
    expect(body.metadata.planId).toBeUndefined();
    expect(body.subscription_data.trial_period_days).toBeUndefined();
    expect(readFeatureDetails(body.metadata)).toEqual([
      { id: features.events.id, name: 'Events', quantity: 5000, price: 528 },
      { id: features.sso.id, name: 'SSO', quantity: null, price: 192 },
      { id: features.seats.id, name: 'Seats', quantity: 3, price: 115.2 },
    ]);
    expect(body.subscription_data.metadata).toEqual(body.metadata);
  });

  test('many features are packed into featureDetails_0…n, each a JSON array of at most 500 characters, 50 keys at most', async () => {
    const { project } = await shop();
    const names = Array.from(
      { length: 80 },
      (_, i) => `Feature number ${i + 1} with a long descriptive name ${'·'.repeat(40)}`,
    );
    const created = [];
    for (let i = 0; i < names.length; i += 20) {
      created.push(
        ...(await Promise.all(
          names.slice(i, i + 20).map((name) => makeFeature(api, project.slug, { name, basePrice: 1 })),
        )),
      );
    }
    const response = await customCheckout({
      shareId: project.shareId,
      features: created.map((f) => ({ featureId: f.id })),
    });
    expect(response.status, response.text).toBe(200);
    const { metadata } = lastCreate().body;
    const detailKeys = Object.keys(metadata).filter((k) => k.startsWith('featureDetails_'));
    expect(detailKeys.length).toBeGreaterThan(10);
    expect(Object.keys(metadata).length).toBeLessThanOrEqual(50);
    for (const value of Object.values(metadata) as string[]) expect(value.length).toBeLessThanOrEqual(500);
    // Each value is a complete JSON array of whole entries; together they list every feature in order.
    const arrays = detailKeys.map((key) => JSON.parse(metadata[key]));
    expect(arrays.flat().map((d: { id: number }) => d.id)).toEqual(created.map((f) => f.id));
    const details = readFeatureDetails(metadata);
    expect(details?.map((d) => d.id)).toEqual(created.map((f) => f.id));
    expect(details?.map((d) => d.name)).toEqual(names);
    expect(lastCreate().body.line_items[0].price_data.unit_amount).toBe('8000');
  });

  test('a selection that cannot fit in Stripe metadata is a clear 400, before Stripe is called', async () => {
    const { project } = await shop();
    // Quotes double in JSON: 170 names of 100 quotes need ~37,000 characters, past 49 × 500.
    const created = [];
    for (let i = 0; i < 120; i += 30) {
      created.push(
        ...(await Promise.all(
          Array.from({ length: 30 }, (_, j) => makeFeature(api, project.slug, { name: `${'"'.repeat(96)}${i + j}` })),
        )),
      );
    }
    const before = fake.requests.length;
    const response = await customCheckout({
      shareId: project.shareId,
      features: created.map((f) => ({ featureId: f.id })),
    });
    expect(response.status, response.text).toBe(400);
    expect(response.body.error.message).toMatch(/metadata/);
    expect(fake.requests.length).toBe(before);
  });

  test('capacity: 147 features of 100-character names fit in 49 values; the 148th is the 400', async () => {
    const { project } = await shop();
    const created: Array<{ id: number }> = [];
    for (let i = 0; i < 148; i += 37) {
      created.push(
        ...(await Promise.all(
          Array.from({ length: 37 }, (_, j) =>
            makeFeature(api, project.slug, { name: `${i + j}`.padStart(100, 'n'), basePrice: 1 }),
          ),
        )),
      );
    }
    const choose = (n: number) => ({
      shareId: project.shareId,
      features: created.slice(0, n).map((f) => ({ featureId: f.id })),
    });
    const fits = await customCheckout(choose(147));
    expect(fits.status, fits.text).toBe(200);
    const { metadata } = lastCreate().body;
    expect(Object.keys(metadata)).toHaveLength(50);
    expect(readFeatureDetails(metadata)?.map((d) => d.id)).toEqual(created.slice(0, 147).map((f) => f.id));

    const before = fake.requests.length;
    const over = await customCheckout(choose(148));
    expect([over.status, over.body.error.code, over.body.error.details[0].path]).toEqual([
      400,
      'validation_error',
      'features',
    ]);
    expect(over.body.error.message).toMatch(/metadata/);
    expect(fake.requests.length).toBe(before);
  });

  test('refusals: unknown feature 404, twice 400, quantity on a plain feature 400, empty 400', async () => {
    const { project, features } = await catalogue();
    const unknown = await customCheckout({ shareId: project.shareId, features: [{ featureId: 999_999_999 }] });
    expect(unknown.status).toBe(404);
    const twice = await customCheckout({
      shareId: project.shareId,
      features: [{ featureId: features.sso.id }, { featureId: features.sso.id }],
    });
    expect([twice.status, twice.body.error.details[0].path]).toEqual([400, 'features[1].featureId']);
    const quantity = await customCheckout({
      shareId: project.shareId,
      features: [{ featureId: features.sso.id, quantity: 3 }],
    });
    expect([quantity.status, quantity.body.error.details[0].path]).toEqual([400, 'features[0].quantity']);
    const empty = await customCheckout({ shareId: project.shareId, features: [] });
    expect(empty.status).toBe(400);
    const negative = await customCheckout({
      shareId: project.shareId,
      features: [{ featureId: features.events.id, quantity: -1 }],
    });
    expect(negative.status).toBe(400);
  });
});

describe('checkouts that come to nothing', () => {
  /** Sends a checkout, expects the 400 of an amount that rounds to 0, and that Stripe heard nothing. */
  async function refusedAsZero(response: Promise<ApiResponse>, path: string) {
    const before = fake.requests.length;
    const answer = await response;
    expect([answer.status, answer.body.error?.code], answer.text).toEqual([400, 'validation_error']);
    expect(answer.body.error.details).toEqual([{ path, message: expect.stringContaining('comes to 0') }]);
    expect(answer.body.error.message).toMatch(/rounds to 0 [A-Z]{3}: there is nothing to check out/);
    expect(fake.requests.length).toBe(before);
    return answer.body.error.message as string;
  }

  test('a plan priced 0 but not marked free is refused like a free plan, monthly and yearly', async () => {
    const { project } = await shop();
    const zero = await makePlan(api, project.slug, { name: 'Zero', basePrice: 0, isFree: false });
    const message = await refusedAsZero(checkout({ shareId: project.shareId, planId: zero.id }), 'planId');
    expect(message).toContain('give the plan a price, or mark it free');
    await refusedAsZero(checkout({ shareId: project.shareId, planId: zero.id, billingInterval: 'year' }), 'planId');
  });

  test('a price that rounds to 0: 0.004 USD a month is nothing, and the message offers the year that is not', async () => {
    const { project } = await shop();
    const tiny = await makePlan(api, project.slug, { name: 'Tiny', basePrice: 0.004 });
    const message = await refusedAsZero(checkout({ shareId: project.shareId, planId: tiny.id }), 'planId');
    expect(message).toContain('Plan');
    expect(message).toContain('0.004 USD a month');
    expect(message).toContain('Choose yearly billing.');
    // 0.004 × 12 × 0.8 = 0.0384 USD: 3.84 cents, rounded half up to 4.
    const yearly = await checkout({ shareId: project.shareId, planId: tiny.id, billingInterval: 'year' });
    expect(yearly.status, yearly.text).toBe(200);
    expect(lastCreate().body.line_items[0].price_data.unit_amount).toBe('4');
  });

  test('per seat: seats that still come to nothing are refused, and the message offers more seats', async () => {
    const { project } = await shop({ annualDiscount: 0.5 });
    const seat = await makePlan(api, project.slug, {
      name: 'Per seat',
      basePrice: 0.0001,
      isPerUserPricing: true,
      perUserMultiplier: 0.5,
    });
    // 0.0001 × (1 + 2 × 0.5) = 0.0002 a month; × 12 × 0.5 = 0.0012 a year: both under half a cent.
    const monthly = await refusedAsZero(checkout({ shareId: project.shareId, planId: seat.id, seats: 3 }), 'planId');
    expect(monthly).toContain('Choose more seats.');
    const yearly = await refusedAsZero(
      checkout({ shareId: project.shareId, planId: seat.id, seats: 3, billingInterval: 'year' }),
      'planId',
    );
    expect(yearly).toContain('0.0012 USD a year');
    // 0.0001 × (1 + 99 × 0.5) = 0.00505 a month: rounded half up, 1 cent.
    const enough = await checkout({ shareId: project.shareId, planId: seat.id, seats: 100 });
    expect(enough.status, enough.text).toBe(200);
    expect(lastCreate().body.line_items[0].price_data.unit_amount).toBe('1');
  });

  test('a custom selection of countable features at quantity 0 is refused, naming the quantity', async () => {
    const { project } = await shop();
    const [events, storage] = await Promise.all([
      makeFeature(api, project.slug, {
        name: 'Events',
        basePrice: 0,
        isCountable: true,
        usageCount: 0,
        countPrice: 0.01,
      }),
      makeFeature(api, project.slug, {
        name: 'Storage',
        basePrice: 0,
        isCountable: true,
        usageCount: 10,
        countPrice: 2,
      }),
    ]);
    const byDefault = await refusedAsZero(
      customCheckout({ shareId: project.shareId, features: [{ featureId: events.id }] }),
      'features',
    );
    expect(byDefault).toContain('Choose a larger quantity or features that have a price.');
    await refusedAsZero(
      customCheckout({
        shareId: project.shareId,
        billingInterval: 'year',
        features: [
          { featureId: events.id, quantity: 0 },
          { featureId: storage.id, quantity: 0 },
        ],
      }),
      'features',
    );
    const some = await customCheckout({ shareId: project.shareId, features: [{ featureId: storage.id, quantity: 1 }] });
    expect(some.status, some.text).toBe(200);
    expect(lastCreate().body.line_items[0].price_data.unit_amount).toBe('200');
  });

  test('custom prices that round to 0: 0.004 USD, and ¥0.4 (JPY has no minor unit) while ¥0.5 is ¥1', async () => {
    const usd = await shop({ annualDiscountEnabled: false });
    const cheap = await makeFeature(api, usd.project.slug, { name: 'Cheap', basePrice: 0.004 });
    await refusedAsZero(
      customCheckout({ shareId: usd.project.shareId, features: [{ featureId: cheap.id }] }),
      'features',
    );
    const year = await customCheckout({
      shareId: usd.project.shareId,
      billingInterval: 'year',
      features: [{ featureId: cheap.id }],
    });
    expect(year.status, year.text).toBe(200);
    expect(lastCreate().body.line_items[0].price_data.unit_amount).toBe('5'); // 0.048 USD

    const jpy = await shop({ currency: 'jpy', annualDiscount: 0.5 });
    const [tenth, half] = await Promise.all([
      makeFeature(api, jpy.project.slug, {
        name: 'Tenths',
        basePrice: 0,
        isCountable: true,
        usageCount: 4,
        countPrice: 0.1,
      }),
      makeFeature(api, jpy.project.slug, { name: 'Half', basePrice: 0.5 }),
    ]);
    const message = await refusedAsZero(
      customCheckout({ shareId: jpy.project.shareId, features: [{ featureId: tenth.id }] }),
      'features',
    );
    expect(message).toContain('0.4 JPY a month');
    const yen = await makePlan(api, jpy.project.slug, { name: 'Fraction of a yen', basePrice: 0.4 });
    await refusedAsZero(checkout({ shareId: jpy.project.shareId, planId: yen.id }), 'planId');
    const one = await customCheckout({ shareId: jpy.project.shareId, features: [{ featureId: half.id }] });
    expect(one.status, one.text).toBe(200);
    expect(lastCreate().body.line_items[0].price_data).toMatchObject({ currency: 'jpy', unit_amount: '1' });
  });

  test('a project with nothing to sell and no payment key is still the 400: the amount is checked first', async () => {
    const { project } = await shop({ paymentSecretKey: null });
    const zero = await makePlan(api, project.slug, { name: 'Zero', basePrice: 0 });
    await refusedAsZero(checkout({ shareId: project.shareId, planId: zero.id }), 'planId');
  });
});

describe('receipts', () => {
  test('a per-seat yearly plan, after the customer paid', async () => {
    const { project, plans } = await shop();
    const created = await checkout({
      shareId: project.shareId,
      planId: plans.team.id,
      seats: 5,
      billingInterval: 'year',
      customerEmail: 'ada@example.com',
    });
    const sessionId = created.body.sessionId;
    const subscription = fake.complete(sessionId).subscription;

    const response = await receipt(sessionId, project.shareId);
    expect(response.status, response.text).toBe(200);
    expect(ReceiptView().parse(response.body)).toEqual({
      planName: 'Team',
      customPlan: false,
      total: 288,
      currency: 'USD',
      customer: { email: 'ada@example.com' },
      billingInterval: 'year',
      subscriptionId: subscription,
      metadata: { planId: String(plans.team.id), planVersion: '1', projectId: String(project.id), seats: '5' },
    });
    expect(response.headers.get('cache-control')).toBe('no-store');
    const retrieve = fake.requests.at(-1);
    expect(retrieve?.query).toMatchObject({ expand: expect.arrayContaining(['subscription', 'line_items']) });
  });

  test('a custom plan', async () => {
    const { project } = await shop();
    const feature = await makeFeature(api, project.slug, { name: 'SSO', basePrice: 20 });
    const created = await customCheckout({ shareId: project.shareId, features: [{ featureId: feature.id }] });
    fake.complete(created.body.sessionId, { email: 'bob@example.com' });
    const response = await receipt(created.body.sessionId, project.shareId);
    expect(response.status, response.text).toBe(200);
    expect(response.body).toMatchObject({
      planName: 'Custom plan',
      customPlan: true,
      total: 20,
      currency: 'USD',
      customer: { email: 'bob@example.com' },
      billingInterval: 'month',
    });
    expect(readFeatureDetails(response.body.metadata)).toEqual([
      { id: feature.id, name: 'SSO', quantity: null, price: 20 },
    ]);
  });

  test('a custom plan of many features: its details packed as whole arrays, each value on its own', async () => {
    const { project } = await shop();
    const features = await Promise.all(
      Array.from({ length: 24 }, (_, i) =>
        makeFeature(api, project.slug, { name: `Feature ${i} ${'😀'.repeat(10)} ${'x'.repeat(40)}`, basePrice: 1 + i }),
      ),
    );
    const created = await customCheckout({
      shareId: project.shareId,
      features: features.map((f) => ({ featureId: f.id })),
    });
    expect(created.status, created.text).toBe(200);
    fake.complete(created.body.sessionId);
    const current = await receipt(created.body.sessionId, project.shareId);
    expect(current.status, current.text).toBe(200);
    const details = readFeatureDetails(current.body.metadata);
    expect(details?.map((d) => d.id)).toEqual(features.map((f) => f.id));
    const values = Object.entries(current.body.metadata as Record<string, string>).filter(([key]) =>
      key.startsWith('featureDetails_'),
    );
    expect(values.length).toBeGreaterThan(2);
    for (const [, value] of values) expect(Array.isArray(JSON.parse(value))).toBe(true);
  });

  test('a trial charges nothing today; a plan deleted since keeps its name', async () => {
    const { project, plans } = await shop();
    const created = await checkout({ shareId: project.shareId, planId: plans.pro.id });
    fake.complete(created.body.sessionId);
    await api.delete(`/api/v1/projects/${project.slug}/plans/${plans.pro.id}`);
    const response = await receipt(created.body.sessionId, project.shareId);
    expect(response.status, response.text).toBe(200);
    expect(response.body).toMatchObject({ planName: 'Pro', total: 0, billingInterval: 'month' });
  });

  test("another project's session is a 404, even on the same Stripe account", async () => {
    const key = testKey();
    const a = await shop({ paymentSecretKey: key });
    const b = await shop({ paymentSecretKey: key });
    const created = await checkout({ shareId: b.project.shareId, planId: b.plans.team.id });
    fake.complete(created.body.sessionId);
    expect((await receipt(created.body.sessionId, b.project.shareId)).status).toBe(200);
    const wrong = await receipt(created.body.sessionId, a.project.shareId);
    expect([wrong.status, wrong.body.error.code]).toEqual([404, 'not_found']);

    const c = await shop();
    const otherAccount = await receipt(created.body.sessionId, c.project.shareId);
    expect(otherAccount.status).toBe(404);
  });

  test('unknown session, unpaid session, unknown page: 404; missing parameters: 400; no key: 409', async () => {
    const { project, plans } = await shop();
    expect((await receipt('cs_test_doesnotexist', project.shareId)).status).toBe(404);
    expect((await receipt('../../v1/customers', project.shareId)).status).toBe(404);
    const open = await checkout({ shareId: project.shareId, planId: plans.team.id });
    expect((await receipt(open.body.sessionId, project.shareId)).status).toBe(404);
    expect((await receipt(open.body.sessionId, 'nosuchshareid0000000000000')).status).toBe(404);

    const noSession = await visitor.get(`/api/payments/receipt?shareId=${project.shareId}`);
    expect([noSession.status, noSession.body.error.details[0].path]).toEqual([400, 'session_id']);
    const noShare = await visitor.get('/api/payments/receipt?session_id=cs_test_x');
    expect([noShare.status, noShare.body.error.details[0].path]).toEqual([400, 'shareId']);

    await api.put(`/api/v1/projects/${project.slug}`, { paymentSecretKey: null });
    const unconfigured = await receipt(open.body.sessionId, project.shareId);
    expect([unconfigured.status, unconfigured.body.error.code]).toEqual([409, 'payments_not_configured']);
  });
});

describe('when Stripe fails', () => {
  test('a Stripe 5xx (after the one retry) is a 502 with its message', async () => {
    const { project, plans } = await shop();
    fake.failNext({ status: 500, message: 'Stripe is having a bad day.' }, 2);
    const response = await checkout({ shareId: project.shareId, planId: plans.pro.id });
    expect([response.status, response.body.error.code]).toEqual([502, 'payment_provider_error']);
    expect(response.body.error.message).toContain('Stripe is having a bad day.');
    expect(logLineOf(response)).toMatchObject({
      level: 'error',
      status: 502,
      error: { name: 'payment_provider_error', message: expect.stringContaining('Stripe is having a bad day.') },
    });
  });

  test('a key Stripe rejects is a 502 that never shows the key', async () => {
    const key = `sk_test_invalid${randomBytes(16).toString('hex')}`;
    secrets.add(key);
    const { project, plans } = await shop({ paymentSecretKey: key });
    const response = await checkout({ shareId: project.shareId, planId: plans.pro.id });
    expect([response.status, response.body.error.code]).toEqual([502, 'payment_provider_error']);
    expect(response.text).not.toContain(key);
    expect(response.text).not.toContain(key.slice(-4));
  });

  test('Stripe declining the request (a 4xx of its own) is a 502 with its message', async () => {
    const { project, plans } = await shop();
    fake.failNext({ status: 400, message: 'Amount must be at least $0.50 usd', code: 'amount_too_small' });
    const response = await checkout({ shareId: project.shareId, planId: plans.pro.id });
    expect([response.status, response.body.error.code]).toEqual([502, 'payment_provider_error']);
    expect(response.body.error.message).toContain('Amount must be at least $0.50 usd');
  });

  test('a Stripe that does not answer is a 502 within the time budget, not a hang', async () => {
    const { project, plans } = await shop();
    fake.hangNext(2);
    const started = Date.now();
    const response = await checkout({ shareId: project.shareId, planId: plans.pro.id });
    const elapsed = Date.now() - started;
    expect([response.status, response.body.error.code]).toEqual([502, 'payment_provider_error']);
    // Two attempts of STRIPE_TIMEOUT_MS=1000 and the SDK's backoff; far from any Lambda limit.
    expect(elapsed).toBeLessThan(8_000);
  });

  test('a receipt lookup Stripe fails is a 502 too', async () => {
    const { project, plans } = await shop();
    const created = await checkout({ shareId: project.shareId, planId: plans.team.id });
    fake.complete(created.body.sessionId);
    fake.failNext({ status: 503 }, 2);
    const response = await receipt(created.body.sessionId, project.shareId);
    expect([response.status, response.body.error.code]).toEqual([502, 'payment_provider_error']);
  });
});

describe('cost', () => {
  test('checkout, custom checkout and receipt each read the project with one DynamoDB request, plus one per rate-limit window and one for the session record', async () => {
    const { project, plans } = await shop();
    const feature = await makeFeature(api, project.slug, { name: 'SSO', basePrice: 20 });
    const plan = await checkout({ shareId: project.shareId, planId: plans.team.id });
    const custom = await customCheckout({ shareId: project.shareId, features: [{ featureId: feature.id }] });
    fake.complete(plan.body.sessionId);
    const read = await receipt(plan.body.sessionId, project.shareId);
    for (const response of [plan, custom, read]) {
      expect(response.status, response.text).toBe(200);
      // The project (one Query), the rate limit (one conditional write for the client's
      // window, one for the project's) and the session record (a checkout writes it, a
      // receipt reads it).
      expect(logLineOf(response)).toMatchObject({ group: 'payments', status: 200, dynamoRequests: 4 });
    }
  });
});

describe('secrets', () => {
  test('no response body and no log line of this file ever contained a payment key', () => {
    expect(secrets.size).toBeGreaterThan(10);
    expect(seen.length).toBeGreaterThan(50);
    expect(seen.some((line) => line.includes('"msg":"request"'))).toBe(true);
    for (const secret of secrets) {
      const leaks = seen.filter((text) => text.includes(secret) || text.includes(secret.slice(8)));
      expect(leaks).toEqual([]);
    }
  });
});
