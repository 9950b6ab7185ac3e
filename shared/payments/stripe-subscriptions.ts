import type Stripe from 'stripe';
import { ConflictError } from '#domain/errors.ts';
import type {
  PaymentGateway,
  SubscriptionCancelFlag,
  SubscriptionChangePreview,
  SubscriptionPriceChange,
} from '#domain/ports.ts';
import { type StripeOptions, withStripe } from './stripe-client.ts';

/**
 * The calls of plan changes after the sale (lifecycle.md §2) and of migrations: a new price
 * and its invoice preview, cancel at period end and its undoing, an immediate cancel, and billing portal
 * sessions. A subscription this account does not have answers undefined.
 */

type Calls = Pick<
  PaymentGateway,
  | 'previewSubscriptionPrice'
  | 'updateSubscriptionPrice'
  | 'setCancelAtPeriodEnd'
  | 'cancelSubscription'
  | 'createPortalSession'
>;

/** Whether an invoice line is a proration (Stripe names it on the line's parent). */
function isProration(line: Stripe.InvoiceLineItem): boolean {
  return (
    line.parent?.subscription_item_details?.proration === true ||
    line.parent?.invoice_item_details?.proration === true ||
    (line as unknown as { proration?: boolean }).proration === true
  );
}

/**
 * The subscription's item with the change's price: its id and product come from the
 * subscription (Stripe's `price_data` on a subscription item names an existing product).
 * Undefined when the subscription has no item.
 */
async function repricedItem(stripe: Stripe, change: SubscriptionPriceChange) {
  const subscription = await stripe.subscriptions.retrieve(change.subscriptionId);
  const item = subscription.items.data[0];
  if (!item) return undefined;
  const product = typeof item.price.product === 'string' ? item.price.product : item.price.product.id;
  return {
    id: item.id,
    price_data: {
      currency: change.currency.toLowerCase(),
      product,
      unit_amount: change.unitAmount,
      recurring: { interval: change.interval },
    },
  };
}

/** The proration lines of the subscription's upcoming invoice with the new price on its item. */
async function previewSubscriptionPrice(
  stripe: Stripe,
  change: SubscriptionPriceChange,
): Promise<SubscriptionChangePreview | undefined> {
  const item = await repricedItem(stripe, change);
  if (!item) return undefined;
  const invoice = await stripe.invoices.createPreview({
    subscription: change.subscriptionId,
    subscription_details: { items: [item], proration_behavior: change.prorationBehavior },
  });
  return {
    lines: invoice.lines.data
      .filter(isProration)
      .map((line) => ({ description: line.description ?? '', amount: line.amount })),
  };
}

/** The new price in one subscription update, which also sets the metadata. */
async function updateSubscriptionPrice(
  stripe: Stripe,
  change: SubscriptionPriceChange,
): Promise<'updated' | undefined> {
  const item = await repricedItem(stripe, change);
  if (!item) return undefined;
  await stripe.subscriptions.update(
    change.subscriptionId,
    { items: [item], proration_behavior: change.prorationBehavior, metadata: change.metadata },
    change.idempotencyKey ? { idempotencyKey: change.idempotencyKey } : undefined,
  );
  return 'updated';
}

export function subscriptionCalls(options: StripeOptions): Calls {
  return {
    previewSubscriptionPrice: (secretKey, change) =>
      withStripe(options, secretKey, (stripe) => previewSubscriptionPrice(stripe, change)),
    updateSubscriptionPrice: (secretKey, change) =>
      withStripe(options, secretKey, (stripe) => updateSubscriptionPrice(stripe, change)),
    setCancelAtPeriodEnd: (secretKey, flag: SubscriptionCancelFlag) =>
      withStripe(options, secretKey, async (stripe) => {
        await stripe.subscriptions.update(
          flag.subscriptionId,
          { cancel_at_period_end: flag.cancelAtPeriodEnd },
          flag.idempotencyKey ? { idempotencyKey: flag.idempotencyKey } : undefined,
        );
        return 'updated' as const;
      }),
    cancelSubscription: (secretKey, subscriptionId) =>
      withStripe(options, secretKey, async (stripe) => {
        await stripe.subscriptions.cancel(subscriptionId);
        return 'canceled' as const;
      }),
    createPortalSession: async (secretKey, request) => {
      const session = await withStripe(options, secretKey, (stripe) =>
        stripe.billingPortal.sessions.create({
          customer: request.customer,
          ...(request.returnUrl ? { return_url: request.returnUrl } : {}),
        }),
      );
      if (!session) {
        throw new ConflictError("This customer's Stripe customer no longer exists in the project's Stripe account.");
      }
      return { url: session.url };
    },
  };
}
