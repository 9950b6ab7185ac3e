import { AsyncResource } from 'node:async_hooks';
import { scanUnfinishedWebhooks, type WebhookEventItem, watchOutboxWrites } from '#db/webhook-deliveries.ts';
import { settleDue } from '#domain/customers/settle.ts';
import type { Keyring } from '#domain/ports.ts';
import {
  attemptDelivery,
  type DeliveryQueue,
  type DeliveryRef,
  type DueRef,
  dispatchOutboxItem,
  ENDPOINT_CONCURRENCY,
  type WebhookSender,
} from '#domain/webhooks-out/delivery.ts';
import { log } from '#shared/logger.ts';

/** How long a dispatch or attempt that failed (DynamoDB Local busy, say) waits before it runs again. */
const RETRY_MS = 1_000;
/** A timer waits at most this long (Node's limit, about 24.8 days); a later wake-up checks and waits again. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * `npm start`'s webhook delivery: the same dispatch and attempt code as the stage's Lambdas
 * (shared/domain/webhooks-out/delivery.ts), fed by this process's own outbox writes instead
 * of the table's stream, with timers in place of the queue's visibility timeouts and of the
 * stage's one-time schedules (a change that takes effect later). Nothing here needs to
 * survive the process: events wait in the outbox, deliveries stay pending and waiting changes
 * stay stored, and the next start finds all three with one scan of the table.
 */
export class LocalWebhooksOut implements DeliveryQueue {
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly inFlight = new Set<Promise<void>>();
  private readonly active = new Map<string, number>();
  private readonly waiting = new Map<string, DeliveryRef[]>();
  private unwatch: (() => void) | undefined;
  // The delivery's own context, apart from the request whose write it saw: as on AWS, where
  // another function runs it, it is no part of the request (nor of its request count).
  private readonly scope = new AsyncResource('LocalWebhooksOut');
  private stopping = false;
  // A stop ends the start's scan after its current page: what it did not reach stays in the
  // table for the next start.
  private readonly scanning = new AbortController();

  constructor(
    private readonly keyring: Keyring,
    private readonly sender: WebhookSender,
    private readonly retryScale = 1,
  ) {}

  /** Watches this process's outbox writes, and picks up what a previous run left. */
  start(): void {
    this.unwatch = watchOutboxWrites((item) => this.scope.runInAsyncScope(() => this.dispatch(item)));
    this.track(
      scanUnfinishedWebhooks(this.scanning.signal).then(
        async ({ events, deliveries, changes }) => {
          for (const item of events) this.dispatch(item);
          for (const { at, ...ref } of changes) await this.wakeAt(ref, Date.parse(at));
          await this.enqueue(
            deliveries.map(({ projectId, endpointId, eventId }) => ({ projectId, endpointId, eventId })),
          );
        },
        (error: unknown) => this.failed('could not resume pending webhooks', error),
      ),
    );
  }

  async enqueue(refs: DeliveryRef[], delaySeconds = 0): Promise<void> {
    for (const ref of refs) this.later(() => this.attempt(ref), delaySeconds * 1000);
  }

  async wakeAt(ref: DueRef, atMs: number): Promise<void> {
    const wait = Math.min(Math.max(0, atMs - Date.now()), MAX_TIMER_MS);
    this.later(() => this.settle(ref), wait);
  }

  private settle(ref: DueRef): void {
    this.track(
      settleDue(ref).then(
        ({ dueAt }) => (dueAt === undefined ? undefined : this.wakeAt(ref, dueAt)),
        (error: unknown) => {
          this.failed('a change due now could not be written; retrying', error);
          this.later(() => this.settle(ref), RETRY_MS);
        },
      ),
    );
  }

  /** Resolves once nothing is in flight (tests; timers of later retries may remain). */
  async idle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.scanning.abort();
    this.unwatch?.();
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    await this.idle();
  }

  private dispatch(item: WebhookEventItem): void {
    this.track(
      dispatchOutboxItem(item, this).catch((error: unknown) => {
        this.failed('webhook dispatch failed; retrying', error);
        this.later(() => this.dispatch(item), RETRY_MS);
      }),
    );
  }

  private attempt(ref: DeliveryRef): void {
    const endpoint = `${ref.projectId}/${ref.endpointId}`;
    // An endpoint's slots (delivery.ts) bound this process's attempts too: the rest wait here, not refused.
    if ((this.active.get(endpoint) ?? 0) >= ENDPOINT_CONCURRENCY) {
      this.waiting.set(endpoint, [...(this.waiting.get(endpoint) ?? []), ref]);
      return;
    }
    this.active.set(endpoint, (this.active.get(endpoint) ?? 0) + 1);
    const run = attemptDelivery({ keyring: this.keyring, sender: this.sender }, ref)
      .then((outcome) => {
        if (!outcome.done) this.later(() => this.attempt(ref), outcome.retryInSeconds * 1000 * this.retryScale);
      })
      .catch((error: unknown) => {
        this.failed('webhook attempt failed; retrying', error);
        this.later(() => this.attempt(ref), RETRY_MS);
      })
      .finally(() => {
        this.active.set(endpoint, (this.active.get(endpoint) ?? 1) - 1);
        const next = this.waiting.get(endpoint)?.shift();
        if (next) this.attempt(next);
      });
    this.track(run);
  }

  private later(work: () => void, ms: number): void {
    if (this.stopping) return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      if (!this.stopping) work();
    }, ms);
    timer.unref();
    this.timers.add(timer);
  }

  private track(work: Promise<void>): void {
    this.inFlight.add(work);
    void work.finally(() => this.inFlight.delete(work));
  }

  private failed(msg: string, error: unknown): void {
    if (this.stopping) return;
    log({ level: 'error', msg, error: { name: (error as Error).name, message: (error as Error).message } });
  }
}
