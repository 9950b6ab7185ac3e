import { noSuch } from './errors.ts';
import type { Params } from './form.ts';
import { now, randomId } from './ids.ts';
import { sessionInput } from './session-input.ts';
import type { FakeLineItem, FakePortalSession, FakeSession, FakeSubscription, Interval } from './types.ts';
import { createWebhooks } from './webhooks.ts';

// The fake's state: Checkout Sessions, the subscriptions paid ones create, and how both
// are rendered on the wire.

const SESSION_LIFETIME_S = 24 * 60 * 60;
const DAY_S = 24 * 60 * 60;

// Rendering: what goes over the wire never includes `internal`.

export function withoutInternal<T extends { internal: unknown }>(object: T): Omit<T, 'internal'> {
  const { internal: _internal, ...rest } = object;
  return rest;
}

export function lineItemList(session: FakeSession) {
  return {
    object: 'list',
    data: session.internal.lineItems,
    has_more: false,
    url: `/v1/checkout/sessions/${session.id}/line_items`,
  };
}

function addPeriod(start: number, interval: Interval, count: number): number {
  const date = new Date(start * 1000);
  if (interval === 'day') date.setUTCDate(date.getUTCDate() + count);
  if (interval === 'week') date.setUTCDate(date.getUTCDate() + 7 * count);
  if (interval === 'month') date.setUTCMonth(date.getUTCMonth() + count);
  if (interval === 'year') date.setUTCFullYear(date.getUTCFullYear() + count);
  return Math.floor(date.getTime() / 1000);
}

export interface Store {
  sessions: Map<string, FakeSession>;
  subscriptions: Map<string, FakeSubscription>;
  /** The account's session; a 404 for another account's, as on Stripe. */
  sessionFor(account: string, id: string): FakeSession;
  renderSession(session: FakeSession, expand: readonly string[]): Params;
  /** Validates the parameters and answers with the rendered session. */
  createSession(account: string, params: Params): Params;
  complete(sessionId: string, options?: { email?: string }): FakeSession;
  /** Webhook endpoints and the events the store's changes send them. */
  webhooks: ReturnType<typeof createWebhooks>;
  /** Billing portal sessions by id (dev/fake-stripe/portal.ts). */
  portalSessions: Map<string, FakePortalSession>;
  /** Where a portal session's page is. */
  portalUrl(portalSessionId: string): string;
  clear(): void;
}

/** `payUrl` gives a session's hosted page (the server's address is known only once it listens). */
export function createStore(
  payUrl: (sessionId: string) => string,
  retryDelaysMs?: readonly number[],
  portalUrl: (portalSessionId: string) => string = (id) => `/portal/${id}`,
): Store {
  const sessions = new Map<string, FakeSession>();
  const webhooks = createWebhooks(retryDelaysMs);
  const subscriptions = new Map<string, FakeSubscription>();
  const portalSessions = new Map<string, FakePortalSession>();

  function sessionFor(account: string, id: string): FakeSession {
    const session = sessions.get(id);
    if (!session || session.internal.account !== account) throw noSuch('checkout.session', id, 'id');
    return session;
  }

  function renderSession(session: FakeSession, expand: readonly string[]): Params {
    const out: Params = { ...withoutInternal(session) };
    if (expand.includes('subscription')) {
      const subscription = session.subscription ? subscriptions.get(session.subscription) : undefined;
      out.subscription = subscription ? withoutInternal(subscription) : null;
    }
    if (expand.includes('line_items')) out.line_items = lineItemList(session);
    return out;
  }

  function createSession(account: string, params: Params): Params {
    const input = sessionInput(params);
    const livemode = account.includes('_live_');
    const id = randomId(livemode ? 'cs_live_' : 'cs_test_');
    const created = now();
    const trial = input.trialPeriodDays !== null;
    const lineItems: FakeLineItem[] = input.lineItems.map((item) => {
      const amount = trial ? 0 : item.unitAmount * item.quantity;
      return {
        id: randomId('li_'),
        object: 'item',
        description: item.name,
        amount_subtotal: amount,
        amount_total: amount,
        currency: item.currency,
        quantity: item.quantity,
        price: {
          id: randomId('price_'),
          object: 'price',
          currency: item.currency,
          unit_amount: item.unitAmount,
          recurring: item.recurring,
          product: randomId('prod_', 14),
        },
      };
    });
    const total = lineItems.reduce((sum, item) => sum + item.amount_total, 0);
    const session: FakeSession = {
      id,
      object: 'checkout.session',
      livemode,
      mode: input.mode,
      status: 'open',
      payment_status: 'unpaid',
      url: payUrl(id),
      success_url: input.successUrl,
      cancel_url: input.cancelUrl,
      currency: lineItems[0]?.currency ?? null,
      amount_subtotal: input.mode === 'setup' ? null : total,
      amount_total: input.mode === 'setup' ? null : total,
      customer: null,
      customer_email: input.customerEmail,
      customer_details: null,
      client_reference_id: input.clientReferenceId,
      locale: input.locale,
      metadata: input.metadata,
      subscription: null,
      payment_intent: null,
      created,
      expires_at: created + SESSION_LIFETIME_S,
      internal: {
        account,
        lineItems,
        trialPeriodDays: input.trialPeriodDays,
        subscriptionMetadata: input.subscriptionMetadata,
        subscriptionDescription: input.subscriptionDescription,
      },
    };
    sessions.set(id, session);
    return renderSession(session, input.expand);
  }

  function complete(sessionId: string, options: { email?: string } = {}): FakeSession {
    const session = sessions.get(sessionId);
    if (!session) throw new Error(`Fake Stripe: no checkout session ${sessionId}`);
    if (session.status !== 'open') throw new Error(`Fake Stripe: checkout session ${sessionId} is ${session.status}`);
    const customer = randomId('cus_', 14);
    const paidAt = now();
    if (session.mode === 'subscription') {
      const trialDays = session.internal.trialPeriodDays;
      const trialEnd = trialDays ? paidAt + trialDays * DAY_S : null;
      const subscriptionId = randomId('sub_');
      const recurringItems = session.internal.lineItems.filter((item) => item.price.recurring !== null);
      const subscription: FakeSubscription = {
        id: subscriptionId,
        object: 'subscription',
        livemode: session.livemode,
        status: trialEnd ? 'trialing' : 'active',
        customer,
        description: session.internal.subscriptionDescription,
        metadata: { ...session.internal.subscriptionMetadata },
        currency: session.currency ?? 'usd',
        created: paidAt,
        start_date: paidAt,
        trial_start: trialEnd ? paidAt : null,
        trial_end: trialEnd,
        cancel_at_period_end: false,
        canceled_at: null,
        ended_at: null,
        items: {
          object: 'list',
          data: recurringItems.map((item) => {
            const recurring = item.price.recurring ?? { interval: 'month', interval_count: 1 };
            return {
              id: randomId('si_', 14),
              object: 'subscription_item',
              quantity: item.quantity,
              price: item.price,
              subscription: subscriptionId,
              current_period_start: paidAt,
              current_period_end: trialEnd ?? addPeriod(paidAt, recurring.interval, recurring.interval_count),
            };
          }),
          has_more: false,
          url: `/v1/subscription_items?subscription=${subscriptionId}`,
        },
        internal: { account: session.internal.account },
      };
      subscriptions.set(subscriptionId, subscription);
      session.subscription = subscriptionId;
    } else if (session.mode === 'payment' && (session.amount_total ?? 0) > 0) {
      session.payment_intent = randomId('pi_');
    }
    session.status = 'complete';
    session.payment_status = session.mode === 'setup' || session.amount_total === 0 ? 'no_payment_required' : 'paid';
    session.customer = customer;
    session.customer_details = { email: options.email ?? session.customer_email ?? 'customer@example.com', name: null };
    session.url = null;
    // What Stripe sends the account's webhook endpoints for a paid subscription checkout.
    const subscription = session.subscription ? subscriptions.get(session.subscription) : undefined;
    if (subscription) {
      webhooks.emit(session.internal.account, 'checkout.session.completed', renderSession(session, []));
      webhooks.emit(session.internal.account, 'customer.subscription.created', withoutInternal(subscription));
    }
    return session;
  }

  return {
    sessions,
    subscriptions,
    sessionFor,
    renderSession,
    createSession,
    complete,
    webhooks,
    portalSessions,
    portalUrl,
    clear() {
      portalSessions.clear();
      sessions.clear();
      subscriptions.clear();
      webhooks.clear();
    },
  };
}
