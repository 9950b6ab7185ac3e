import { createHmac } from 'node:crypto';
import {
  asOutboxItem,
  ensureDelivery,
  getDelivery,
  recordAttempt,
  removeOutboxItem,
  reopenDelivery,
  type WebhookEventItem,
} from '#db/webhook-deliveries.ts';
import { freeDeliverySlot, takeDeliverySlot } from '#db/webhook-leases.ts';
import { disableEndpoint, listEndpointItems } from '#db/webhooks-out.ts';
import type { Keyring } from '../ports.ts';
import { openEndpointSecret } from './endpoints.ts';

/**
 * Delivery of the outbox's events (lifecycle.md §4), the same code on AWS (the stream
 * dispatcher and the queue's delivering Lambda, functions/webhooks-out/) and in `npm start`
 * (dev/local-webhooks-out.ts): what differs is only who calls and how a retry waits.
 */

/** One delivery to attempt: what a queue message names. */
export interface DeliveryRef {
  projectId: number;
  endpointId: number;
  eventId: string;
}

/** A customer whose stored subscription has a change to write when it takes effect. */
export interface DueRef {
  projectId: number;
  ownerId: string;
  slug: string;
  customerId: string;
}

/** Where deliveries wait for their attempt: SQS in a stage, timers in a local run. */
export interface DeliveryQueue {
  /** Hands the deliveries on, to be attempted after `delaySeconds` (0: at once). */
  enqueue(refs: DeliveryRef[], delaySeconds?: number): Promise<void>;
  /**
   * Wakes the worker with `ref` at `atMs` (epoch ms; at once when past): an EventBridge
   * Scheduler one-time schedule onto the delivery queue in a stage, a timer locally. `id`
   * names the wake-up, so setting the same one again sets nothing more.
   */
  wakeAt(ref: DueRef, atMs: number, id: string): Promise<void>;
}

/** One POST to a receiver: its status, or null when nothing answered in time (or the host was refused). */
export interface WebhookSender {
  send(url: string, headers: Record<string, string>, body: string): Promise<number | null>;
}

/**
 * Seconds to wait after attempt n (1-based) fails before attempt n + 1: growing, and 24.2 h
 * in all before the last attempt (docs/decisions.md, "Webhooks out"). Each is at most 12 h,
 * SQS's longest visibility timeout.
 */
export const RETRY_DELAYS_S = [5, 30, 120, 600, 3_600, 10_800, 28_800, 43_200] as const;
export const MAX_ATTEMPTS = RETRY_DELAYS_S.length + 1;
export const ATTEMPT_TIMEOUT_MS = 10_000;
/**
 * Attempts in flight to one endpoint at once, across every instance: a slow or hanging
 * receiver holds at most this many, and its other deliveries wait on the queue instead of
 * taking the workers every other endpoint's deliveries need.
 */
export const ENDPOINT_CONCURRENCY = 2;
/**
 * How long an attempt holds its endpoint's slot at most: longer than the delivering
 * function's timeout (30 s), so a slot is never taken from an attempt still running, and a
 * holder that crashed gives it back by then.
 */
export const SLOT_LEASE_MS = 40_000;
/** How long a delivery whose endpoint's slots are all held waits before it tries again. */
export const BUSY_WAIT_S = 5;
const RETENTION_S = 30 * 24 * 60 * 60;

/** Standard Webhooks' `v1,` signature: HMAC-SHA256 with the secret's bytes over "{id}.{timestamp}.{body}". */
export function signature(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

/** A stream record's new image: dispatched when it is an outbox item, ignored otherwise. */
export async function dispatchStreamImage(image: Record<string, unknown>, queue: DeliveryQueue): Promise<void> {
  const item = asOutboxItem(image);
  if (item) await dispatchOutboxItem(item, queue);
}

/**
 * Turns one outbox item into its deliveries: one per endpoint that is enabled and takes its
 * type (none written twice when the item comes again), handed to the queue, then the item
 * goes. A resend sets its delivery pending again and hands it on. Safe to run again from the
 * start at any point: a crash leaves the item in the outbox, or a delivery queued twice
 * (the second attempt finds it delivered and sends nothing). A `due` item sets its wake-up
 * instead, which is safe to set again too.
 */
export async function dispatchOutboxItem(item: WebhookEventItem, queue: DeliveryQueue): Promise<void> {
  const { projectId } = item;
  if (item.due) {
    const { ownerId, slug, customerId, at } = item.due;
    await queue.wakeAt({ projectId, ownerId, slug, customerId }, Date.parse(at), item.eventId);
  } else if (item.resend) {
    const ref = { projectId, endpointId: item.resend.endpointId, eventId: item.resend.eventId };
    if ((await reopenDelivery(ref)) === 'reopened') await queue.enqueue([ref]);
  } else {
    const endpoints = (await listEndpointItems(projectId)).filter(
      (endpoint) => !endpoint.disabledAt && endpoint.events.includes(item.type),
    );
    const expiresAt = Math.floor(Date.now() / 1000) + RETENTION_S;
    const deliveries = await Promise.all(
      endpoints.map((endpoint) =>
        ensureDelivery({
          projectId,
          endpointId: endpoint.endpointId,
          eventId: item.eventId,
          type: item.type,
          body: item.body,
          status: 'pending',
          attempts: 0,
          expiresAt,
        }),
      ),
    );
    const pending = deliveries.filter((delivery) => delivery.status === 'pending');
    await queue.enqueue(pending.map(({ endpointId, eventId }) => ({ projectId, endpointId, eventId })));
  }
  await removeOutboxItem(projectId, item.eventId);
}

/** `busy`: nothing was attempted (every slot of the endpoint was held); it is not counted. */
export type AttemptOutcome = { done: true } | { done: false; retryInSeconds: number; busy?: true };

/**
 * One attempt of one delivery, signed with the endpoint's current secret, in one of the
 * endpoint's slots: recorded, and either done (delivered, failed for good, or nothing left
 * to send) or to be tried again after the returned delay (`busy` when no slot was free and
 * nothing was sent). The same event id is the `webhook-id` of every attempt.
 */
export async function attemptDelivery(
  ports: { keyring: Keyring; sender: WebhookSender },
  ref: DeliveryRef,
): Promise<AttemptOutcome> {
  const delivery = await getDelivery(ref.projectId, ref.endpointId, ref.eventId);
  if (delivery?.status !== 'pending') return { done: true };
  const endpoint = (await listEndpointItems(ref.projectId)).find((item) => item.endpointId === ref.endpointId);
  const attempts = delivery.attempts + 1;
  const lastAttemptAt = new Date().toISOString();
  if (!endpoint || endpoint.disabledAt) {
    await recordAttempt(ref, {
      status: 'failed',
      attempts: delivery.attempts,
      lastAttemptAt,
      lastResponseStatus: null,
    });
    return { done: true };
  }
  const lease = await takeDeliverySlot(ref, ENDPOINT_CONCURRENCY, SLOT_LEASE_MS);
  if (!lease) return { done: false, retryInSeconds: BUSY_WAIT_S, busy: true };
  try {
    const secret = await openEndpointSecret(ports.keyring, endpoint);
    const timestamp = Math.floor(Date.now() / 1000);
    const status = await ports.sender.send(
      endpoint.url,
      {
        'content-type': 'application/json',
        'user-agent': 'pricing-plan-service-webhooks/1',
        'webhook-id': delivery.eventId,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': signature(secret, delivery.eventId, timestamp, delivery.body),
      },
      delivery.body,
    );
    const succeeded = (status ?? 0) >= 200 && (status ?? 0) < 300;
    if (status === 410) await disableEndpoint(endpoint, lastAttemptAt);
    const finished = succeeded || status === 410 || attempts >= MAX_ATTEMPTS;
    await recordAttempt(ref, {
      status: succeeded ? 'succeeded' : finished ? 'failed' : 'pending',
      attempts,
      lastAttemptAt,
      lastResponseStatus: status,
    });
    return finished ? { done: true } : { done: false, retryInSeconds: RETRY_DELAYS_S[attempts - 1] as number };
  } finally {
    await freeDeliverySlot(ref, lease);
  }
}
