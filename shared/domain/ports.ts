import type { BillingInterval } from '#contract/enums.ts';
import type { ProjectKey } from '#db/types.ts';

/**
 * What the domain needs from outside, as interfaces. The adapters that implement them
 * (shared/secrets/keyring.ts, shared/payments/stripe.ts) are built once per process by the
 * composition root (shared/composition.ts) and handed in; the domain never imports them.
 */

export type EncryptionContext = Record<string, string>;

/** Envelope encryption of the secrets a project stores with us (its Stripe key). */
export interface Keyring {
  /** Encrypts under a fresh 256-bit data key; returns one opaque, storable ASCII string. */
  seal(plaintext: string, context: EncryptionContext): Promise<string>;
  /** Reverses seal with the same context; anything else throws SecretUnreadableError. */
  open(sealed: string, context: EncryptionContext): Promise<string>;
}

/**
 * The stored value cannot be turned back into the secret here. Its message says why, and
 * never quotes the sealed input: a plaintext key stored by mistake would otherwise end up
 * in a log line.
 */
export class SecretUnreadableError extends Error {
  override name = 'SecretUnreadableError';
}

export interface CheckoutSessionRequest {
  /** ISO 4217, any case. */
  currency: string;
  /** In the currency's minor unit. */
  unitAmount: number;
  interval: BillingInterval;
  productName: string;
  trialDays?: number;
  /** Set on the session and on the subscription it creates. */
  metadata: Record<string, string>;
  successUrl: string;
  cancelUrl: string;
  customerEmail?: string;
  /** The owner's id for the buyer: Stripe's client_reference_id. */
  clientReferenceId?: string;
  idempotencyKey?: string;
}

export interface CheckoutSessionSummary {
  id: string;
  status: string | null;
  metadata: Record<string, string>;
  amountTotal: number | null;
  currency: string | null;
  customerEmail: string | null;
  subscription: { id: string; interval: string | null } | null;
  /** The line item's product name, as the provider kept it. */
  productName: string | null;
}

/** A subscription's new price (one item update), as a plan migration sends it. */
export interface SubscriptionPriceChange {
  subscriptionId: string;
  currency: string;
  /** In the currency's minor unit, for the whole interval. */
  unitAmount: number;
  interval: BillingInterval;
  /** `create_prorations` charges the difference for the rest of the period; `none` starts at the next one. */
  prorationBehavior: 'create_prorations' | 'none';
  /** Set on the subscription (merged with what it has). */
  metadata: Record<string, string>;
  idempotencyKey?: string;
}

/** A change's proration lines, as the provider's invoice preview has them (minor units; a credit is negative). */
export interface SubscriptionChangePreview {
  lines: { description: string; amount: number }[];
}

/** Cancel at period end (true), take that back (false). */
export interface SubscriptionCancelFlag {
  subscriptionId: string;
  cancelAtPeriodEnd: boolean;
  idempotencyKey?: string;
}

/**
 * Each project sells through its own payment account, so every call takes the project's
 * secret key. Failures arrive as domain errors (payment_provider_error, conflict).
 */
export interface PaymentGateway {
  createCheckoutSession(secretKey: string, request: CheckoutSessionRequest): Promise<{ id: string; url: string }>;
  /** Undefined when this account has no such session. */
  retrieveCheckoutSession(secretKey: string, sessionId: string): Promise<CheckoutSessionSummary | undefined>;
  /** Puts a new price on the subscription's one item; undefined when this account has no such subscription. */
  updateSubscriptionPrice(secretKey: string, change: SubscriptionPriceChange): Promise<'updated' | undefined>;
  /** What `updateSubscriptionPrice` with this change would prorate now; undefined when there is no such subscription. */
  previewSubscriptionPrice(
    secretKey: string,
    change: SubscriptionPriceChange,
  ): Promise<SubscriptionChangePreview | undefined>;
  /** Sets or clears cancel at period end; undefined when there is no such subscription. */
  setCancelAtPeriodEnd(secretKey: string, flag: SubscriptionCancelFlag): Promise<'updated' | undefined>;
  /** Ends the subscription now; undefined when there is no such subscription. */
  cancelSubscription(secretKey: string, subscriptionId: string): Promise<'canceled' | undefined>;
  /** A billing portal session of a payment-provider customer (`cus_…`). */
  createPortalSession(secretKey: string, request: { customer: string; returnUrl?: string }): Promise<{ url: string }>;
}

/**
 * The keys customer tokens are signed with (HMAC-SHA256): the newest signs, every listed one
 * verifies, so a key can be rotated in without cutting off tokens already handed out.
 */
export interface CustomerTokenKeys {
  signing: { id: string; secret: Buffer };
  secretFor(id: string): Buffer | undefined;
}

/** The time, in epoch milliseconds: handed in so that tests can move it instead of waiting. */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/**
 * Where a deleted project's sweep is handed over, to run after the DELETE has answered: an
 * SQS queue in a stage (shared/sweeps/sqs-queue.ts), a background task in the local server
 * (dev/local-sweeper.ts). The hand-over needs no durability of its own: the sweep's record
 * stays in the table until the sweep ends, and pending records are resumed (at the local
 * server's start; by the stage's periodic check).
 */
export interface SweepQueue {
  enqueue(projectId: number): Promise<void>;
}

/**
 * Where a plan migration too large for one request is handed over (lifecycle.md §1): the
 * sweep queue in a stage (shared/sweeps/sqs-queue.ts, run by the sweeper function), a
 * background task in the local server (dev/local-migrations.ts). A lost hand-over loses
 * nothing stored: resending the migration finds who has not moved yet.
 */
export interface MigrationQueue {
  enqueue(job: MigrationJob): Promise<void>;
}

/** A verified Stripe event: what its signed payload says, as delivered. */
export interface WebhookEvent {
  id: string;
  type: string;
  /** Seconds since the epoch, Stripe's `created`. */
  created: number;
  /** `data.object`: the session or subscription the event is about. */
  object: Record<string, unknown>;
}

/** Checks a webhook's signature against the raw body, as the payment provider signs it. */
export interface WebhookVerifier {
  /** Throws InvalidSignatureError for a bad, missing or stale signature. */
  verify(rawBody: string, signature: string | undefined, secret: string): Promise<WebhookEvent>;
}

/** Everything the domain may be handed; a use case takes only the ports it needs. */
export interface Ports {
  keyring: Keyring;
  payments: PaymentGateway;
  clock: Clock;
  sweeps: SweepQueue;
  migrations: MigrationQueue;
  webhooks: WebhookVerifier;
  tokenKeys: CustomerTokenKeys;
}

/** A migration as the background runs it: what moves where, re-read from the table each time. */
export interface MigrationJob extends ProjectKey {
  planId: number;
  fromVersions: number[];
  toVersion: number;
  at: 'now' | 'period_end';
}
