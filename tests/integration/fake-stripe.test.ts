import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Stripe from 'stripe';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type FakeStripe, parseForm, startFakeStripe } from '#dev/fake-stripe/index.ts';
import { rejection } from '../fixtures/rejection.ts';

// The real SDK against the fake: if the two disagree on the wire format, these fail.

const KEY = 'sk_test_AccountA0123456789abcdef';
const OTHER_KEY = 'sk_test_AccountB0123456789abcdef';

let fake: FakeStripe;

beforeAll(async () => {
  fake = await startFakeStripe();
});

afterAll(async () => {
  await fake.close();
});

beforeEach(() => {
  fake.reset();
});

function stripe(key = KEY, options: { maxNetworkRetries?: number; timeout?: number } = {}): Stripe {
  return new Stripe(key, {
    host: '127.0.0.1',
    port: fake.port,
    protocol: 'http',
    maxNetworkRetries: options.maxNetworkRetries ?? 1,
    timeout: options.timeout ?? 5000,
  });
}

function subscriptionParams(overrides: Record<string, unknown> = {}): Stripe.Checkout.SessionCreateParams {
  return {
    mode: 'subscription',
    line_items: [
      {
        quantity: 1,
        price_data: {
          currency: 'usd',
          unit_amount: 1900,
          product_data: { name: 'Pro plan' },
          recurring: { interval: 'month' },
        },
      },
    ],
    success_url: 'https://app.example.com/billing/done?session={CHECKOUT_SESSION_ID}',
    cancel_url: 'https://app.example.com/billing',
    customer_email: 'ada@example.com',
    metadata: { planId: '3', projectId: 'proj_1' },
    subscription_data: { trial_period_days: 14, metadata: { planId: '3' } },
    ...overrides,
  };
}

describe('creating a checkout session', () => {
  it('answers a Stripe-shaped session and records the parsed request', async () => {
    const session = await stripe().checkout.sessions.create(subscriptionParams(), { idempotencyKey: 'checkout-1' });

    expect(session.id).toMatch(/^cs_test_[A-Za-z0-9]{24}$/);
    expect(session).toMatchObject({
      object: 'checkout.session',
      livemode: false,
      mode: 'subscription',
      status: 'open',
      payment_status: 'unpaid',
      url: `${fake.url}/pay/${session.id}`,
      success_url: 'https://app.example.com/billing/done?session={CHECKOUT_SESSION_ID}',
      cancel_url: 'https://app.example.com/billing',
      currency: 'usd',
      amount_subtotal: 0,
      amount_total: 0,
      customer_email: 'ada@example.com',
      customer_details: null,
      metadata: { planId: '3', projectId: 'proj_1' },
      subscription: null,
    });
    expect(session.expires_at - session.created).toBe(24 * 60 * 60);
    expect(session).not.toHaveProperty('internal');
    expect(session.lastResponse.requestId).toMatch(/^req_/);

    const recorded = fake.lastSessionCreate();
    expect(recorded).toMatchObject({
      method: 'POST',
      path: '/v1/checkout/sessions',
      query: {},
      apiKey: KEY,
      idempotencyKey: 'checkout-1',
      body: {
        mode: 'subscription',
        line_items: [
          {
            quantity: '1',
            price_data: {
              currency: 'usd',
              unit_amount: '1900',
              product_data: { name: 'Pro plan' },
              recurring: { interval: 'month' },
            },
          },
        ],
        success_url: 'https://app.example.com/billing/done?session={CHECKOUT_SESSION_ID}',
        metadata: { planId: '3', projectId: 'proj_1' },
        subscription_data: { trial_period_days: '14', metadata: { planId: '3' } },
      },
    });
    expect(recorded?.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(recorded?.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(fake.sessions.get(session.id)?.internal.account).toBe(KEY);
  });

  it('charges unit_amount × quantity without a trial, and the SDK keys every POST itself', async () => {
    const session = await stripe().checkout.sessions.create(
      subscriptionParams({
        subscription_data: undefined,
        line_items: [
          {
            quantity: 3,
            price_data: {
              currency: 'EUR',
              unit_amount: 250,
              product_data: { name: 'Seat' },
              recurring: { interval: 'year' },
            },
          },
        ],
      }),
    );
    expect(session).toMatchObject({ amount_subtotal: 750, amount_total: 750, currency: 'eur' });
    expect(fake.lastSessionCreate()?.idempotencyKey).toMatch(/^stripe-node-retry-[0-9a-f-]{36}$/);
  });

  it('rejects a missing required parameter with its param', async () => {
    const error = await rejection(stripe().checkout.sessions.create(subscriptionParams({ success_url: undefined })));
    expect(error).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    expect(error).toMatchObject({
      statusCode: 400,
      param: 'success_url',
      message: 'Missing required param: success_url.',
    });
  });

  it('rejects an unknown parameter, also inside line items', async () => {
    const top = await rejection(stripe().checkout.sessions.create({ ...subscriptionParams(), customer: 'cus_1' }));
    expect(top).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    expect(top).toMatchObject({ statusCode: 400, param: 'customer', message: 'Received unknown parameter: customer' });

    const params: any = subscriptionParams();
    params.line_items[0].price_data.amount = 5;
    const nested = await rejection(stripe().checkout.sessions.create(params));
    expect(nested).toMatchObject({ statusCode: 400, param: 'line_items[0][price_data][amount]' });
  });

  it('validates line items like Stripe', async () => {
    const cases: [unknown, string][] = [
      [
        { quantity: 1, price_data: { currency: 'usd', product_data: { name: 'X' } } },
        'line_items[0][price_data][unit_amount]',
      ],
      [
        { quantity: 1, price_data: { currency: 'usd', unit_amount: 100_000_000, product_data: { name: 'X' } } },
        'line_items[0][price_data][unit_amount]',
      ],
      [
        { quantity: 1, price_data: { currency: 'dollars', unit_amount: 5, product_data: { name: 'X' } } },
        'line_items[0][price_data][currency]',
      ],
      [
        { quantity: 1, price_data: { currency: 'usd', unit_amount: 5, product_data: { name: '' } } },
        'line_items[0][price_data][product_data][name]',
      ],
      [
        {
          quantity: 1,
          price_data: {
            currency: 'usd',
            unit_amount: 5,
            product_data: { name: 'X' },
            recurring: { interval: 'fortnight' },
          },
        },
        'line_items[0][price_data][recurring][interval]',
      ],
      [
        {
          price_data: {
            currency: 'usd',
            unit_amount: 5,
            product_data: { name: 'X' },
            recurring: { interval: 'month' },
          },
        },
        'line_items[0][quantity]',
      ],
      [
        {
          quantity: 0,
          price_data: {
            currency: 'usd',
            unit_amount: 5,
            product_data: { name: 'X' },
            recurring: { interval: 'month' },
          },
        },
        'line_items[0][quantity]',
      ],
      [{ quantity: 1, price_data: { currency: 'usd', unit_amount: 5, product_data: { name: 'X' } } }, 'line_items'],
    ];
    for (const [item, param] of cases) {
      const error = await rejection(stripe().checkout.sessions.create(subscriptionParams({ line_items: [item] })));
      expect(error, param).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
      expect(error.param, JSON.stringify(item)).toBe(param);
    }
    const noItems = await rejection(stripe().checkout.sessions.create(subscriptionParams({ line_items: undefined })));
    expect(noItems.param).toBe('line_items');
  });

  it('enforces the metadata limits', async () => {
    const value = 'x'.repeat(501);
    const error = await rejection(stripe().checkout.sessions.create(subscriptionParams({ metadata: { note: value } })));
    expect(error).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    expect(error).toMatchObject({ statusCode: 400, param: 'metadata[note]' });
    expect(error.message).toBe(
      `Metadata values can have up to 500 characters, but you passed in a value that is 501 characters. Invalid value: ${value}`,
    );

    const longKey = await rejection(
      stripe().checkout.sessions.create(
        subscriptionParams({ subscription_data: { metadata: { ['k'.repeat(41)]: 'v' } } }),
      ),
    );
    expect(longKey.param).toBe(`subscription_data[metadata][${'k'.repeat(41)}]`);

    const many = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`key${i}`, 'v']));
    const tooMany = await rejection(stripe().checkout.sessions.create(subscriptionParams({ metadata: many })));
    expect(tooMany.param).toBe('metadata');
  });

  it('limits trials to 730 days and subscription_data to subscription mode', async () => {
    const long = await rejection(
      stripe().checkout.sessions.create(subscriptionParams({ subscription_data: { trial_period_days: 731 } })),
    );
    expect(long.param).toBe('subscription_data[trial_period_days]');

    const inPayment = await rejection(
      stripe().checkout.sessions.create(
        subscriptionParams({
          mode: 'payment',
          line_items: [{ quantity: 1, price_data: { currency: 'usd', unit_amount: 500, product_data: { name: 'X' } } }],
        }),
      ),
    );
    expect(inPayment.param).toBe('subscription_data');
  });
});

describe('retrieving a checkout session', () => {
  it('expands subscription and line_items, before and after the customer pays', async () => {
    const client = stripe();
    const created = await client.checkout.sessions.create(subscriptionParams());

    const before = await client.checkout.sessions.retrieve(created.id, { expand: ['subscription', 'line_items'] });
    expect(fake.requests.at(-1)?.query).toEqual({ expand: ['subscription', 'line_items'] });
    expect(before.subscription).toBeNull();
    expect(before.line_items).toMatchObject({
      object: 'list',
      has_more: false,
      url: `/v1/checkout/sessions/${created.id}/line_items`,
      data: [
        {
          object: 'item',
          description: 'Pro plan',
          currency: 'usd',
          quantity: 1,
          price: {
            object: 'price',
            currency: 'usd',
            unit_amount: 1900,
            recurring: { interval: 'month', interval_count: 1 },
          },
        },
      ],
    });
    expect(before.line_items?.data[0]?.id).toMatch(/^li_/);
    expect(before.line_items?.data[0]?.price?.product).toMatch(/^prod_/);

    fake.complete(created.id, { email: 'payer@example.com' });

    const after = await client.checkout.sessions.retrieve(created.id, { expand: ['subscription', 'line_items'] });
    expect(after).toMatchObject({
      status: 'complete',
      payment_status: 'no_payment_required',
      url: null,
      customer_details: { email: 'payer@example.com', name: null },
    });
    const subscription = after.subscription as Stripe.Subscription;
    expect(subscription).toMatchObject({
      object: 'subscription',
      status: 'trialing',
      metadata: { planId: '3' },
      currency: 'usd',
      items: { object: 'list', data: [{ object: 'subscription_item', quantity: 1 }] },
    });
    expect(subscription.id).toMatch(/^sub_/);
    expect(subscription.customer).toMatch(/^cus_/);
    expect(subscription.trial_end).toBe((subscription.trial_start ?? 0) + 14 * 24 * 60 * 60);
    expect(subscription.items.data[0]?.price.id).toBe(after.line_items?.data[0]?.price?.id);

    const plain = await client.checkout.sessions.retrieve(created.id);
    expect(plain.subscription).toBe(subscription.id);
    expect(plain).not.toHaveProperty('line_items');
    const direct = await client.subscriptions.retrieve(subscription.id);
    expect(direct.id).toBe(subscription.id);
  });

  it('marks a session without a trial as paid and its subscription active', async () => {
    const created = await stripe().checkout.sessions.create(subscriptionParams({ subscription_data: undefined }));
    const session = fake.complete(created.id);
    expect(session).toMatchObject({ payment_status: 'paid', customer_details: { email: 'ada@example.com' } });
    expect(fake.subscriptions.get(session.subscription ?? '')?.status).toBe('active');
  });

  it("does not show one account's objects to another", async () => {
    const created = await stripe().checkout.sessions.create(subscriptionParams());
    const error = await rejection(stripe(OTHER_KEY).checkout.sessions.retrieve(created.id));
    expect(error).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    expect(error).toMatchObject({
      statusCode: 404,
      code: 'resource_missing',
      param: 'id',
      message: `No such checkout.session: '${created.id}'`,
    });

    const session = fake.complete(created.id);
    const subscriptionError = await rejection(stripe(OTHER_KEY).subscriptions.retrieve(session.subscription ?? ''));
    expect(subscriptionError).toMatchObject({ statusCode: 404, code: 'resource_missing' });
  });

  it('refuses to expand what cannot be expanded', async () => {
    const created = await stripe().checkout.sessions.create(subscriptionParams());
    const error = await rejection(stripe().checkout.sessions.retrieve(created.id, { expand: ['customer.invoices'] }));
    expect(error).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    expect(error.message).toBe('This property cannot be expanded (customer.invoices).');
  });
});

describe('authentication', () => {
  it('rejects an invalid key without echoing it', async () => {
    const key = 'sk_test_invalid0123456789WXYZ';
    const error = await rejection(stripe(key).checkout.sessions.create(subscriptionParams()));
    expect(error).toBeInstanceOf(Stripe.errors.StripeAuthenticationError);
    expect(error.statusCode).toBe(401);
    expect(error.message).toBe('Invalid API Key provided: sk_test_****WXYZ');
    expect(error.message).not.toContain(key);
    expect(fake.sessions.size).toBe(0);
  });

  it('answers a request without a key with Stripe-shaped JSON', async () => {
    const response = await fetch(`${fake.url}/v1/checkout/sessions/cs_test_x`);
    expect(response.status).toBe(401);
    expect(response.headers.get('request-id')).toMatch(/^req_/);
    const body: any = await response.json();
    expect(body.error.type).toBe('invalid_request_error');
    expect(body.error.message).toMatch(/^You did not provide an API key\./);
  });

  it('answers an unknown route with 404', async () => {
    const error = await rejection(stripe().rawRequest('GET', '/v1/checkout/nothing'));
    expect(error).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    expect(error.statusCode).toBe(404);
    expect(error.message).toMatch(/^Unrecognized request URL \(GET: \/v1\/checkout\/nothing\)/);
  });
});

describe('idempotency', () => {
  it('replays the first response for the same key and parameters', async () => {
    const client = stripe();
    const first = await client.checkout.sessions.create(subscriptionParams(), { idempotencyKey: 'same' });
    const second = await client.checkout.sessions.create(subscriptionParams(), { idempotencyKey: 'same' });
    expect(second.id).toBe(first.id);
    expect(second.lastResponse.headers['idempotent-replayed']).toBe('true');
    expect(fake.sessions.size).toBe(1);

    // Keys are per account.
    const elsewhere = await stripe(OTHER_KEY).checkout.sessions.create(subscriptionParams(), {
      idempotencyKey: 'same',
    });
    expect(elsewhere.id).not.toBe(first.id);
  });

  it('refuses the same key with different parameters', async () => {
    const client = stripe();
    await client.checkout.sessions.create(subscriptionParams(), { idempotencyKey: 'reused' });
    const error = await rejection(
      client.checkout.sessions.create(subscriptionParams({ metadata: { planId: '4' } }), { idempotencyKey: 'reused' }),
    );
    expect(error).toBeInstanceOf(Stripe.errors.StripeIdempotencyError);
    expect(error.statusCode).toBe(400);
    expect(error.message).toContain("Try using a key other than 'reused'");
  });

  it('does not store a request that failed validation', async () => {
    const client = stripe();
    await rejection(client.checkout.sessions.create(subscriptionParams({ mode: 'rental' }), { idempotencyKey: 'k' }));
    const session = await client.checkout.sessions.create(subscriptionParams(), { idempotencyKey: 'k' });
    expect(session.id).toMatch(/^cs_test_/);
  });
});

describe('injected failures', () => {
  it('fails the SDK for good when every attempt gets a 500', async () => {
    fake.failNext({ status: 500 }, 2);
    const error = await rejection(stripe().checkout.sessions.create(subscriptionParams()));
    expect(error).toBeInstanceOf(Stripe.errors.StripeAPIError);
    expect(error.statusCode).toBe(500);
    expect(fake.requests).toHaveLength(2);
    // The retry reuses the SDK's idempotency key.
    expect(fake.requests[1]?.idempotencyKey).toBe(fake.requests[0]?.idempotencyKey);
    expect(fake.sessions.size).toBe(0);
  });

  it('lets the SDK retry through a single 500', async () => {
    fake.failNext({ status: 503, message: 'Try again' });
    const session = await stripe().checkout.sessions.create(subscriptionParams());
    expect(session.id).toMatch(/^cs_test_/);
    expect(fake.requests).toHaveLength(2);
  });

  it('passes type, code and message through', async () => {
    fake.failNext({ status: 429, code: 'rate_limit', message: 'Slow down' });
    const error = await rejection(stripe().checkout.sessions.create(subscriptionParams()));
    expect(error).toBeInstanceOf(Stripe.errors.StripeRateLimitError);
    expect(error).toMatchObject({ statusCode: 429, code: 'rate_limit', message: 'Slow down' });
  });

  it('hangs until the SDK times out', async () => {
    fake.hangNext();
    const started = Date.now();
    const error = await rejection(
      stripe(KEY, { timeout: 300, maxNetworkRetries: 0 }).checkout.sessions.create(subscriptionParams()),
    );
    expect(error).toBeInstanceOf(Stripe.errors.StripeConnectionError);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(fake.requests).toHaveLength(1);
  });
});

describe('hosted pay page', () => {
  it('shows the product and amount, and paying redirects to success_url with the id', async () => {
    const created = await stripe().checkout.sessions.create(subscriptionParams({ subscription_data: undefined }));
    const page = await fetch(created.url ?? '');
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('Fake Stripe Checkout');
    expect(html).toContain('Pro plan');
    expect(html).toContain('$19.00');
    expect(html).toContain('<form method="post"');
    expect(html).toContain('href="https://app.example.com/billing"');

    const paid = await fetch(created.url ?? '', { method: 'POST', redirect: 'manual' });
    expect(paid.status).toBe(303);
    expect(paid.headers.get('location')).toBe(`https://app.example.com/billing/done?session=${created.id}`);
    expect(fake.sessions.get(created.id)).toMatchObject({ status: 'complete', payment_status: 'paid' });
    expect(fake.sessions.get(created.id)?.subscription).toMatch(/^sub_/);
    // Not API traffic.
    expect(fake.requests.map((request) => request.path)).toEqual(['/v1/checkout/sessions']);

    expect((await fetch(`${fake.url}/pay/cs_test_unknown`)).status).toBe(404);
  });
});

describe('form decoding', () => {
  it('nests brackets, turns 0..n-1 hashes into arrays and keeps values as strings', () => {
    expect(parseForm('a[0][b]=1&a[1][b]=2&m[x]=y%20z&e[]=p&e[]=q&flag=true&n[0]=x&n[2]=y')).toEqual({
      a: [{ b: '1' }, { b: '2' }],
      m: { x: 'y z' },
      e: ['p', 'q'],
      flag: 'true',
      n: { 0: 'x', 2: 'y' },
    });
    const parsed = parseForm('__proto__[polluted]=1');
    expect(Object.keys(parsed)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('the pay page of a trial', () => {
  it('states the price that follows the trial, per period, and the 0 due today', async () => {
    const created = await stripe().checkout.sessions.create(
      subscriptionParams({
        line_items: [
          {
            quantity: 1,
            price_data: {
              currency: 'eur',
              unit_amount: 69600,
              product_data: { name: 'Pro' },
              recurring: { interval: 'year' },
            },
          },
        ],
      }),
    );
    expect(created.amount_total).toBe(0);
    const html = await (await fetch(created.url ?? '')).text();
    expect(html).toContain('<p class="amount">€696.00 per year</p>');
    expect(html).toContain('14-day free trial, then €696.00 per year; €0.00 due today');
    expect(html).not.toContain('€0.00 per year');
  });
});

describe('state kept in a file', () => {
  it('sessions and subscriptions outlive a restart: the session, its subscription and its pay page are still there', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fake-stripe-state-'));
    const stateFile = join(dir, 'data', 'fake-stripe.json');
    try {
      const first = await startFakeStripe({ stateFile });
      const sdk = (port: number) => new Stripe(KEY, { host: '127.0.0.1', port, protocol: 'http' });
      const created = await sdk(first.port).checkout.sessions.create(subscriptionParams());
      const open = await sdk(first.port).checkout.sessions.create(subscriptionParams());
      const paid = await fetch(created.url ?? '', { method: 'POST', redirect: 'manual' });
      expect(paid.status).toBe(303);
      const subscriptionId = first.sessions.get(created.id)?.subscription as string;
      first.updateSubscription(subscriptionId, { quantity: 3 });
      first.renewSubscription(subscriptionId);
      const renewedUntil = first.subscriptions.get(subscriptionId)?.items.data[0]?.current_period_end;
      await first.close();
      expect(statSync(stateFile).mode & 0o777).toBe(0o600);

      const second = await startFakeStripe({ stateFile });
      try {
        const read = await sdk(second.port).checkout.sessions.retrieve(created.id, { expand: ['subscription'] });
        expect(read).toMatchObject({ status: 'complete', customer_email: 'ada@example.com' });
        expect((read.subscription as Stripe.Subscription).items.data[0]).toMatchObject({
          quantity: 3,
          current_period_end: renewedUntil,
        });
        expect((await sdk(second.port).checkout.sessions.retrieve(open.id)).status).toBe('open');
        expect(second.subscriptions.get(subscriptionId)?.status).toBe('trialing');
      } finally {
        await second.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a file that is not its state stops it with a message naming the file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fake-stripe-state-'));
    const stateFile = join(dir, 'fake-stripe.json');
    try {
      writeFileSync(stateFile, 'not json');
      await expect(startFakeStripe({ stateFile })).rejects.toThrow(`${stateFile} is not the fake Stripe's state`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
