import { noSuch } from './errors.ts';
import type { Params } from './form.ts';
import { now } from './ids.ts';
import { itemPriceData, prorationBehavior, repriceItem } from './item-price.ts';
import { bool, hash, integer, list, metadata, name, rejectUnknown, text } from './params.ts';
import { type Store, withoutInternal } from './store.ts';
import type { FakeSubscription, SubscriptionChange } from './types.ts';

// Changing a subscription after the sale, as Stripe's API (and its dashboard) does, each
// change sent to the account's webhook endpoints: update (seats, plan via metadata,
// cancel at period end) and cancel.

export function subscriptionFor(store: Store, account: string, id: string): FakeSubscription {
  const subscription = store.subscriptions.get(id);
  if (!subscription || subscription.internal.account !== account) throw noSuch('subscription', id, 'id');
  return subscription;
}

/** Applies a change and sends `customer.subscription.updated`. */
export function changeSubscription(store: Store, subscription: FakeSubscription, change: SubscriptionChange) {
  const item = subscription.items.data[0];
  if (change.price) repriceItem(subscription, change.price, change.prorationBehavior ?? 'create_prorations');
  if (change.quantity !== undefined && item) item.quantity = change.quantity;
  if (change.metadata) {
    for (const [key, value] of Object.entries(change.metadata)) {
      if (value === '') delete subscription.metadata[key];
      else subscription.metadata[key] = value;
    }
  }
  if (change.cancelAtPeriodEnd !== undefined) subscription.cancel_at_period_end = change.cancelAtPeriodEnd;
  store.webhooks.emit(subscription.internal.account, 'customer.subscription.updated', withoutInternal(subscription));
  return withoutInternal(subscription);
}

/**
 * Starts the next period now, as Stripe does when a subscription renews (the test clock's
 * advance), and sends `customer.subscription.updated`: prorations are invoiced then.
 */
export function renewSubscription(store: Store, subscription: FakeSubscription) {
  for (const item of subscription.items.data) {
    const span = item.current_period_end - item.current_period_start;
    item.current_period_start = Math.max(item.current_period_end, now());
    item.current_period_end = item.current_period_start + span;
  }
  subscription.internal.prorations = [];
  store.webhooks.emit(subscription.internal.account, 'customer.subscription.updated', withoutInternal(subscription));
  return withoutInternal(subscription);
}

/** Ends the subscription now and sends `customer.subscription.deleted`. */
export function cancelSubscription(store: Store, subscription: FakeSubscription) {
  if (subscription.status !== 'canceled') {
    subscription.status = 'canceled';
    subscription.canceled_at = now();
    subscription.ended_at = subscription.canceled_at;
    store.webhooks.emit(subscription.internal.account, 'customer.subscription.deleted', withoutInternal(subscription));
  }
  return withoutInternal(subscription);
}

/**
 * POST /v1/subscriptions/{id}: `items[0][quantity]`, `items[0][price_data]`, `metadata[...]` (empty
 * unsets), `cancel_at_period_end`, `proration_behavior`.
 */
export function updateParams(params: Params, subscription: FakeSubscription): SubscriptionChange {
  rejectUnknown(params, ['items', 'metadata', 'cancel_at_period_end', 'proration_behavior', 'quantity'], '');
  const change: SubscriptionChange = {};
  if (params.quantity !== undefined) change.quantity = integer(params.quantity, 'quantity', 1, 999_999);
  (list(params.items, 'items') ?? []).forEach((value, i) => {
    const prefix = name('items', i);
    const item = hash(value, prefix) ?? {};
    rejectUnknown(item, ['id', 'quantity', 'price_data'], prefix);
    const id = text(item.id, name(prefix, 'id'), false);
    if (id !== undefined && id !== subscription.items.data[0]?.id)
      throw noSuch('subscription_item', id, name(prefix, 'id'));
    if (item.quantity !== undefined) change.quantity = integer(item.quantity, name(prefix, 'quantity'), 1, 999_999);
    const priceData = hash(item.price_data, name(prefix, 'price_data'));
    if (priceData) change.price = itemPriceData(priceData, name(prefix, 'price_data'), subscription);
  });
  if (params.metadata !== undefined) {
    // Empty values are kept here: on an update they unset their key.
    const raw = hash(params.metadata, 'metadata') ?? {};
    change.metadata = { ...metadata(params.metadata, 'metadata') };
    for (const [key, value] of Object.entries(raw)) if (value === '') change.metadata[key] = '';
  }
  const cancel = bool(params.cancel_at_period_end, 'cancel_at_period_end');
  if (cancel !== undefined) change.cancelAtPeriodEnd = cancel;
  const behavior = prorationBehavior(params.proration_behavior);
  if (behavior !== undefined) change.prorationBehavior = behavior;
  return change;
}
