import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type FakeStripe, startFakeStripe } from '#dev/fake-stripe/index.ts';

/**
 * The fake Stripe's webhooks, checked with the real SDK: endpoints per account with their own
 * signing secret, Stripe's signature scheme, retries on 5xx, and the events of pay, update and
 * cancel.
 */
let fake: FakeStripe;
let receiver: ReturnType<typeof createServer>;
let receiverUrl: string;
const received: { signature: string; body: string }[] = [];
let failFirst = 0;

const read = async (req: IncomingMessage) => {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
};

beforeAll(async () => {
  fake = await startFakeStripe({ webhookRetryDelaysMs: [10, 10, 10] });
  receiver = createServer(async (req, res) => {
    const body = await read(req);
    if (failFirst > 0) {
      failFirst--;
      res.writeHead(503).end();
      return;
    }
    received.push({ signature: String(req.headers['stripe-signature']), body });
    res.writeHead(200).end('{}');
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
});

afterAll(async () => {
  await fake.close();
  await new Promise((resolve) => receiver.close(resolve));
});

const stripeFor = (key: string) => {
  const base = new URL(fake.url);
  return new Stripe(key, { host: base.hostname, port: base.port, protocol: 'http', maxNetworkRetries: 0 });
};

describe('fake Stripe webhooks', () => {
  test('pay, update and cancel each send signed events that the real SDK verifies, retried on 5xx', async () => {
    const key = `sk_test_${'w'.repeat(24)}`;
    const stripe = stripeFor(key);
    const endpoint = await stripe.webhookEndpoints.create({ url: receiverUrl, enabled_events: ['*'] });
    expect(endpoint.secret).toMatch(/^whsec_/);
    const other = await stripeFor(`sk_test_${'o'.repeat(24)}`).webhookEndpoints.create({
      url: receiverUrl,
      enabled_events: ['*'],
    });
    expect(other.secret).not.toBe(endpoint.secret);
    expect((await stripe.webhookEndpoints.list()).data.map((e) => e.id)).toEqual([endpoint.id]);

    const session = await stripe.checkout.sessions.create({
      mode: 'subscription',
      client_reference_id: 'user_1',
      line_items: [
        {
          quantity: 1,
          price_data: {
            currency: 'usd',
            unit_amount: 500,
            recurring: { interval: 'month' },
            product_data: { name: 'Pro' },
          },
        },
      ],
      subscription_data: { metadata: { planId: '1', customerId: 'user_1' } },
      success_url: 'https://shop.example/ok',
    });
    failFirst = 2;
    fake.complete(session.id);
    await fake.webhooksSettled();
    const subscriptionId = fake.sessions.get(session.id)?.subscription as string;
    await stripe.subscriptions.update(subscriptionId, {
      metadata: { planId: '2' },
      items: [{ id: fake.subscriptions.get(subscriptionId)?.items.data[0]?.id, quantity: 3 }],
    });
    await stripe.subscriptions.cancel(subscriptionId);
    await fake.webhooksSettled();

    const events = received.map(({ body, signature }) =>
      Stripe.webhooks.constructEvent(body, signature, endpoint.secret as string),
    );
    expect(events.map((e) => e.type)).toEqual([
      'checkout.session.completed',
      'customer.subscription.created',
      'customer.subscription.updated',
      'customer.subscription.deleted',
    ]);
    expect(fake.deliveries[0]?.attempts).toEqual([503, 503, 200]);
    const updated = events[2]?.data.object as Stripe.Subscription;
    expect(updated.metadata.planId).toBe('2');
    expect(updated.items.data[0]?.quantity).toBe(3);
    expect((events[3]?.data.object as Stripe.Subscription | undefined)?.status).toBe('canceled');
    // Another secret does not verify them.
    const first = received[0] as { body: string; signature: string };
    expect(() => Stripe.webhooks.constructEvent(first.body, first.signature, other.secret as string)).toThrow();
  });

  test('the dashboard page lists subscriptions; its cancel button cancels and sends the event', async () => {
    const key = `sk_test_${'d'.repeat(24)}`;
    const stripe = stripeFor(key);
    const endpoint = await stripe.webhookEndpoints.create({
      url: receiverUrl,
      enabled_events: ['customer.subscription.deleted'],
    });
    const session = await stripe.checkout.sessions.create({
      mode: 'subscription',
      line_items: [
        {
          quantity: 1,
          price_data: {
            currency: 'usd',
            unit_amount: 500,
            recurring: { interval: 'month' },
            product_data: { name: 'Pro' },
          },
        },
      ],
      success_url: 'https://shop.example/ok',
    });
    fake.complete(session.id);
    const id = fake.sessions.get(session.id)?.subscription as string;
    const html = await (await fetch(`${fake.url}/dashboard`)).text();
    expect(html).toContain(`/dashboard/subscriptions/${id}/cancel`);
    expect(html).toContain('name="seats"');
    received.length = 0;
    const cancel = await fetch(`${fake.url}/dashboard/subscriptions/${id}/cancel`, {
      method: 'POST',
      redirect: 'manual',
    });
    expect(cancel.status).toBe(303);
    await fake.webhooksSettled();
    expect(
      received.map(
        ({ body, signature }) => Stripe.webhooks.constructEvent(body, signature, endpoint.secret as string).type,
      ),
    ).toEqual(['customer.subscription.deleted']);
  });
});
