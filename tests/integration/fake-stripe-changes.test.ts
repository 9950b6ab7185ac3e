import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeStripe, startFakeStripe } from '#dev/fake-stripe/index.ts';
import { rejection } from '../fixtures/rejection.ts';

// The real SDK against the fake's plan-change calls: invoice previews (the proration its
// invoices.ts documents), cancel at period end and back, and billing portal sessions.

const KEY = 'sk_test_Changes0123456789abcdefgh';
const OTHER_KEY = 'sk_test_Elsewhere0123456789abcdef';
let fake: FakeStripe;

beforeAll(async () => {
  fake = await startFakeStripe();
});
afterAll(async () => {
  await fake.close();
});

const stripe = (key = KEY) => new Stripe(key, { host: '127.0.0.1', port: fake.port, protocol: 'http' });

async function subscribed(unitAmount = 1000) {
  const session = await stripe().checkout.sessions.create({
    mode: 'subscription',
    line_items: [
      {
        quantity: 1,
        price_data: {
          currency: 'usd',
          unit_amount: unitAmount,
          product_data: { name: 'Basic' },
          recurring: { interval: 'month' },
        },
      },
    ],
    success_url: 'https://app.example/ok',
    metadata: { planId: '1' },
    subscription_data: { metadata: { planId: '1' } },
  });
  const completed = fake.complete(session.id);
  const subscription = fake.subscriptions.get(completed.subscription ?? '');
  if (!subscription) throw new Error('no subscription');
  return subscription;
}

describe('invoice previews', () => {
  it('credits the old price and charges the new one for the rest of the period, as documented', async () => {
    const subscription = await subscribed(1000);
    const item = subscription.items.data[0];
    if (!item) throw new Error('no item');
    const product = item.price.product;
    const before = Math.floor(Date.now() / 1000);
    const invoice = await stripe().invoices.createPreview({
      subscription: subscription.id,
      subscription_details: {
        items: [
          {
            id: item.id,
            price_data: { currency: 'usd', product, unit_amount: 2500, recurring: { interval: 'month' } },
          },
        ],
        proration_behavior: 'create_prorations',
      },
    });
    const prorations = invoice.lines.data.filter((line) => line.parent?.subscription_item_details?.proration);
    expect(prorations).toHaveLength(2);
    const at = prorations[0]?.period.start ?? 0;
    expect(at).toBeGreaterThanOrEqual(before);
    const left = (item.current_period_end - at) / (item.current_period_end - item.current_period_start);
    expect(prorations.map((line) => line.amount)).toEqual([-Math.round(1000 * left), Math.round(2500 * left)]);
    // The next period at the new price follows; nothing changed at the subscription.
    expect(invoice.lines.data.at(-1)).toMatchObject({ amount: 2500 });
    expect(fake.subscriptions.get(subscription.id)?.items.data[0]?.price.unit_amount).toBe(1000);
  });

  it('prorates nothing with proration_behavior none; refuses another account and unknown parameters', async () => {
    const subscription = await subscribed();
    const item = subscription.items.data[0];
    if (!item) throw new Error('no item');
    const price = {
      currency: 'usd',
      product: item.price.product,
      unit_amount: 500,
      recurring: { interval: 'month' as const },
    };
    const invoice = await stripe().invoices.createPreview({
      subscription: subscription.id,
      subscription_details: { items: [{ id: item.id, price_data: price }], proration_behavior: 'none' },
    });
    expect(invoice.lines.data.map((line) => line.amount)).toEqual([500]);
    const other = await rejection(stripe(OTHER_KEY).invoices.createPreview({ subscription: subscription.id }));
    expect(other).toMatchObject({ statusCode: 404, code: 'resource_missing' });
    const unknown = await rejection(
      stripe().invoices.createPreview({ subscription: subscription.id, automatic_tax: { enabled: true } }),
    );
    expect(unknown).toMatchObject({ statusCode: 400 });
  });
});

describe('cancel at period end and billing portal sessions', () => {
  it('sets and clears cancel_at_period_end; a portal session of the customer, with its page', async () => {
    const subscription = await subscribed();
    await stripe().subscriptions.update(subscription.id, { cancel_at_period_end: true });
    expect(fake.subscriptions.get(subscription.id)?.cancel_at_period_end).toBe(true);
    await stripe().subscriptions.update(subscription.id, { cancel_at_period_end: false });
    expect(fake.subscriptions.get(subscription.id)?.cancel_at_period_end).toBe(false);
    const session = await stripe().billingPortal.sessions.create({
      customer: subscription.customer,
      return_url: 'https://app.example/account',
    });
    expect(session.url).toBe(`${fake.url}/portal/${session.id}`);
    const page = await fetch(session.url);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain(subscription.id);
    expect(html).toContain('https://app.example/account');
    const cancel = await fetch(`${session.url}/subscriptions/${subscription.id}/cancel`, {
      method: 'POST',
      redirect: 'manual',
    });
    expect(cancel.status).toBe(303);
    expect(fake.subscriptions.get(subscription.id)?.cancel_at_period_end).toBe(true);
    const missing = await rejection(stripe().billingPortal.sessions.create({ customer: 'cus_nobody' }));
    expect(missing).toMatchObject({ statusCode: 404, code: 'resource_missing' });
    const elsewhere = await rejection(
      stripe(OTHER_KEY).billingPortal.sessions.create({ customer: subscription.customer }),
    );
    expect(elsewhere).toMatchObject({ statusCode: 404 });
  });
});
