import { invalid, missing } from './errors.ts';
import type { Params } from './form.ts';
import { now, randomId } from './ids.ts';
import { itemPriceData, prorationBehavior } from './item-price.ts';
import { hash, list, name, rejectUnknown, text } from './params.ts';
import type { Store } from './store.ts';
import { subscriptionFor } from './subscriptions.ts';
import type { FakePrice, FakeSubscription } from './types.ts';

/**
 * `POST /v1/invoices/create_preview` for a subscription with a changed item
 * (`subscription_details[items][0][price_data]`, `subscription_details[proration_behavior]`):
 * the invoice the change leads to, as Stripe previews it.
 *
 * The proration, which tests may compute on their own from the subscription's item:
 *   left   = (current_period_end − t) / (current_period_end − current_period_start), clamped to [0, 1],
 *            where t is the preview's time in whole seconds (the lines' `period.start`);
 *   credit = −round(old unit_amount × quantity × left)   "Unused time on … after …"
 *   charge =  round(new unit_amount × quantity × left)   "Remaining time on … after …"
 * rounded half up to whole minor units (Math.round), each a line with
 * `parent.subscription_item_details.proration: true`. With `proration_behavior=none` there are
 * no proration lines. Every preview also has the next period's line at the new price
 * (`proration: false`); `amount_due` is the sum of all lines.
 */

function line(
  subscription: FakeSubscription,
  amount: number,
  description: string,
  proration: boolean,
  period: { start: number; end: number },
) {
  const item = subscription.items.data[0];
  return {
    id: randomId('il_'),
    object: 'line_item',
    amount,
    currency: subscription.currency,
    description,
    period,
    quantity: item?.quantity ?? 1,
    parent: {
      type: 'subscription_item_details',
      subscription_item_details: { proration, subscription: subscription.id, subscription_item: item?.id ?? null },
      invoice_item_details: null,
    },
  };
}

const day = (seconds: number) => new Date(seconds * 1000).toISOString().slice(0, 10);

export function createPreview(store: Store, account: string, params: Params) {
  rejectUnknown(params, ['subscription', 'subscription_details', 'customer'], '');
  const id = text(params.subscription, 'subscription', false);
  if (!id) throw missing('subscription');
  const subscription = subscriptionFor(store, account, id);
  const details = hash(params.subscription_details, 'subscription_details') ?? {};
  rejectUnknown(
    details,
    ['items', 'proration_behavior', 'proration_date', 'cancel_at_period_end'],
    'subscription_details',
  );
  const item = subscription.items.data[0];
  if (!item) throw invalid('This subscription has no items.', 'subscription');
  let price: FakePrice = item.price;
  (list(details.items, 'subscription_details[items]') ?? []).forEach((value, i) => {
    const prefix = name('subscription_details[items]', i);
    const entry = hash(value, prefix) ?? {};
    rejectUnknown(entry, ['id', 'price_data', 'quantity'], prefix);
    const data = hash(entry.price_data, name(prefix, 'price_data'));
    if (data) price = itemPriceData(data, name(prefix, 'price_data'), subscription);
  });
  const behavior = prorationBehavior(details.proration_behavior) ?? 'create_prorations';
  const at = now();
  const start = item.current_period_start;
  const end = item.current_period_end;
  const left = end > start ? Math.max(0, Math.min(1, (end - at) / (end - start))) : 0;
  const product = subscription.description ?? 'subscription';
  const proration = (amount: number, time: string) =>
    line(subscription, amount, `${time} time on ${product} after ${day(at)}`, true, { start: at, end });
  const lines = [];
  if (behavior !== 'none' && price.unit_amount !== item.price.unit_amount) {
    lines.push(
      proration(-Math.round(item.price.unit_amount * item.quantity * left), 'Unused'),
      proration(Math.round(price.unit_amount * item.quantity * left), 'Remaining'),
    );
  }
  const span = end - start;
  lines.push(
    line(subscription, price.unit_amount * item.quantity, `${item.quantity} × ${product}`, false, {
      start: end,
      end: end + span,
    }),
  );
  const total = lines.reduce((sum, entry) => sum + entry.amount, 0);
  return {
    id: null,
    object: 'invoice',
    customer: subscription.customer,
    subscription: subscription.id,
    currency: subscription.currency,
    subtotal: total,
    total,
    amount_due: Math.max(0, total),
    lines: { object: 'list', data: lines, has_more: false, url: '/v1/invoices/upcoming/lines' },
    subscription_proration_date: at,
  };
}
