import { invalid, missing, noSuch } from './errors.ts';
import type { Params } from './form.ts';
import { now, randomId } from './ids.ts';
import { hash, integer, name, oneOf, rejectUnknown, text } from './params.ts';
import {
  type FakePrice,
  type FakeProration,
  type FakeSubscription,
  type Interval,
  type ProrationBehavior,
  prorationBehaviors,
} from './types.ts';

// A subscription item's new price, as Stripe's subscription update takes it
// (`items[0][price_data]` with `proration_behavior`), and the proration Stripe would invoice.

const MAX_UNIT_AMOUNT = 99_999_999;
const INTERVALS: readonly Interval[] = ['day', 'week', 'month', 'year'];

/**
 * `items[i][price_data]` of a subscription update: currency (the subscription's), an existing
 * product (Stripe takes no `product_data` here), `unit_amount` and `recurring[interval]`.
 */
export function itemPriceData(data: Params, prefix: string, subscription: FakeSubscription): FakePrice {
  rejectUnknown(data, ['currency', 'unit_amount', 'product', 'recurring', 'tax_behavior'], prefix);
  const currencyParam = name(prefix, 'currency');
  const currency = (text(data.currency, currencyParam, true) ?? '').toLowerCase();
  if (currency !== subscription.currency) {
    throw invalid(
      `The price's currency (${currency}) must match the subscription's currency (${subscription.currency}).`,
      currencyParam,
    );
  }
  const productParam = name(prefix, 'product');
  const product = text(data.product, productParam, true) ?? '';
  if (!subscription.items.data.some((item) => item.price.product === product)) {
    throw noSuch('product', product, productParam);
  }
  const amountParam = name(prefix, 'unit_amount');
  if (data.unit_amount === undefined) throw missing(amountParam);
  const unitAmount = integer(data.unit_amount, amountParam, 0, MAX_UNIT_AMOUNT);
  const recurringParam = name(prefix, 'recurring');
  const recurring = hash(data.recurring, recurringParam);
  if (!recurring) throw missing(recurringParam);
  rejectUnknown(recurring, ['interval', 'interval_count'], recurringParam);
  const intervalParam = name(recurringParam, 'interval');
  const interval = oneOf(text(recurring.interval, intervalParam, true) ?? '', INTERVALS, intervalParam);
  const count =
    recurring.interval_count === undefined
      ? 1
      : integer(recurring.interval_count, name(recurringParam, 'interval_count'), 1, 12);
  return {
    id: randomId('price_'),
    object: 'price',
    currency,
    unit_amount: unitAmount,
    recurring: { interval, interval_count: count },
    product,
  };
}

export const prorationBehavior = (value: unknown): ProrationBehavior | undefined => {
  const behavior = text(value, 'proration_behavior', false);
  return behavior === undefined ? undefined : oneOf(behavior, prorationBehaviors, 'proration_behavior');
};

/**
 * Puts the new price on the item. With `create_prorations` (Stripe's default) or
 * `always_invoice`, the unused rest of the period is credited at the old price and charged at
 * the new one; with `none`, the new price applies from the next period and nothing is owed now.
 */
export function repriceItem(
  subscription: FakeSubscription,
  price: FakePrice,
  behavior: ProrationBehavior,
): FakeProration | undefined {
  const item = subscription.items.data[0];
  if (!item) return undefined;
  const at = now();
  const span = item.current_period_end - item.current_period_start;
  const left = span > 0 ? Math.max(0, Math.min(1, (item.current_period_end - at) / span)) : 0;
  const difference = (price.unit_amount - item.price.unit_amount) * item.quantity;
  item.price = price;
  if (behavior === 'none') return undefined;
  const proration = { subscriptionItem: item.id, amount: Math.round(difference * left), behavior, at };
  subscription.internal.prorations = [...(subscription.internal.prorations ?? []), proration];
  return proration;
}
