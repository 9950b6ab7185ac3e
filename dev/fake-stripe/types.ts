/** The fake's objects as Stripe sends them (plus an `internal` part that is never sent), and its handle. */

export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, unknown>;
  headers: Record<string, string>;
  apiKey: string | undefined;
  idempotencyKey: string | undefined;
  body: Record<string, unknown>;
}

export type Interval = 'day' | 'week' | 'month' | 'year';

export interface FakePrice {
  id: string;
  object: 'price';
  currency: string;
  unit_amount: number;
  recurring: { interval: Interval; interval_count: number } | null;
  product: string;
}

export interface FakeLineItem {
  id: string;
  object: 'item';
  description: string;
  amount_subtotal: number;
  amount_total: number;
  currency: string;
  quantity: number;
  price: FakePrice;
}

export interface FakeSubscription {
  id: string;
  object: 'subscription';
  livemode: boolean;
  status: 'trialing' | 'active' | 'past_due' | 'canceled' | 'unpaid' | 'paused';
  customer: string;
  description: string | null;
  metadata: Record<string, string>;
  currency: string;
  created: number;
  start_date: number;
  trial_start: number | null;
  trial_end: number | null;
  cancel_at_period_end: boolean;
  canceled_at: number | null;
  ended_at: number | null;
  items: {
    object: 'list';
    data: {
      id: string;
      object: 'subscription_item';
      quantity: number;
      price: FakePrice;
      subscription: string;
      current_period_start: number;
      current_period_end: number;
    }[];
    has_more: false;
    url: string;
  };
  /** Not part of the Stripe object: never sent. `prorations`: what price changes left to invoice. */
  internal: { account: string; prorations?: FakeProration[] };
}

export interface FakeSession {
  id: string;
  object: 'checkout.session';
  livemode: boolean;
  mode: 'payment' | 'subscription' | 'setup';
  status: 'open' | 'complete' | 'expired';
  payment_status: 'unpaid' | 'paid' | 'no_payment_required';
  /** Null once the session is complete, as on Stripe. */
  url: string | null;
  /** As sent: `{CHECKOUT_SESSION_ID}` is only substituted when redirecting. */
  success_url: string;
  cancel_url: string | null;
  currency: string | null;
  amount_subtotal: number | null;
  amount_total: number | null;
  customer: string | null;
  customer_email: string | null;
  customer_details: { email: string; name: string | null } | null;
  client_reference_id: string | null;
  locale: string | null;
  metadata: Record<string, string>;
  subscription: string | null;
  payment_intent: string | null;
  created: number;
  expires_at: number;
  /** Not part of the Stripe object: never sent. */
  internal: {
    account: string;
    lineItems: FakeLineItem[];
    trialPeriodDays: number | null;
    subscriptionMetadata: Record<string, string>;
    subscriptionDescription: string | null;
  };
}

export interface FakePortalSession {
  id: string;
  object: 'billing_portal.session';
  customer: string;
  livemode: boolean;
  return_url: string | null;
  url: string;
  created: number;
  internal: { account: string };
}

export interface FakeWebhookEndpoint {
  id: string;
  object: 'webhook_endpoint';
  url: string;
  enabled_events: string[];
  status: 'enabled';
  livemode: boolean;
  created: number;
  /** Stripe returns the signing secret only when the endpoint is created. */
  secret: string;
  internal: { account: string };
}

export interface FakeDelivery {
  endpoint: string;
  url: string;
  eventId: string;
  type: string;
  /** The HTTP status of each attempt (0: no answer). */
  attempts: number[];
  done: boolean;
}

/** A change to a subscription, from the API or the dashboard. */
export const prorationBehaviors = ['create_prorations', 'none', 'always_invoice'] as const;
export type ProrationBehavior = (typeof prorationBehaviors)[number];

/** A proration line Stripe would add to the next invoice: credit for the old price, charge for the new. */
export interface FakeProration {
  subscriptionItem: string;
  /** In the minor unit; negative is a credit. */
  amount: number;
  behavior: ProrationBehavior;
  at: number;
}

export interface SubscriptionChange {
  quantity?: number;
  metadata?: Record<string, string>;
  cancelAtPeriodEnd?: boolean;
  /** A new price for the item (`items[0][price_data]`), prorated as `prorationBehavior` says. */
  price?: FakePrice;
  prorationBehavior?: ProrationBehavior;
}

export interface FakeFailure {
  status: number;
  type?: string;
  message?: string;
  code?: string;
}

export interface FakeStripe {
  url: string;
  port: number;
  /** Every /v1 request, in order, including failed, injected-failure and hanging ones. */
  requests: RecordedRequest[];
  sessions: Map<string, FakeSession>;
  subscriptions: Map<string, FakeSubscription>;
  /** Billing portal sessions by id. */
  portalSessions: Map<string, FakePortalSession>;
  lastSessionCreate(): RecordedRequest | undefined;
  /** The customer paying; throws when the session is unknown or no longer open. */
  complete(sessionId: string, options?: { email?: string }): FakeSession;
  /** Webhook endpoints by id, every account's. */
  webhookEndpoints: Map<string, FakeWebhookEndpoint>;
  /** Every webhook delivery, with the status of each attempt. */
  deliveries: FakeDelivery[];
  /** Resolves once every delivery started so far has succeeded or given up. */
  webhooksSettled(): Promise<void>;
  /** Changes a subscription as the dashboard does, and sends `customer.subscription.updated`. */
  updateSubscription(id: string, change: SubscriptionChange): unknown;
  /** Starts its next period now (a renewal), and sends `customer.subscription.updated`. */
  renewSubscription(id: string): unknown;
  /** Cancels a subscription now, and sends `customer.subscription.deleted`. */
  cancelSubscription(id: string): unknown;
  /** The SDK retries 5xx (and 409) up to maxNetworkRetries, so a final failure needs retries + 1. */
  failNext(error: FakeFailure, times?: number): void;
  /** Recorded and never answered; the socket stays open until the client gives up, dropHanging() or close(). */
  hangNext(times?: number): void;
  /** Closes the sockets of the requests hanging now, as a network that drops them would. */
  dropHanging(): void;
  /** Clears state and queued failures/hangs; requests already hanging stay so until close(). */
  reset(): void;
  close(): Promise<void>;
}
