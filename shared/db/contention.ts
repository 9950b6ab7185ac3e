// Storage's "not now": what the domain may answer with 503 and Retry-After instead of a 500.
import { setTimeout as sleep } from 'node:timers/promises';
import { isNamed } from './errors.ts';

/** What DynamoDB answers when it cannot take a write now (its SDK has retried the throttling ones already). */
const THROTTLING = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
  'TransactionInProgressException',
  // A PutItem, UpdateItem or DeleteItem of an item an ongoing transaction holds (not retried
  // by the SDK): e.g. a customer delete beside a grant or a webhook saving that customer.
  'TransactionConflictException',
]);
/** Cancellation reasons of a transaction that may commit when tried again later. */
const TRANSIENT_REASONS = new Set(['TransactionConflict', 'ThrottlingError', 'ProvisionedThroughputExceeded']);

/**
 * DynamoDB could not take the request in time: concurrent writes of the same items outlasted
 * the retries, or it throttled (also keys left unprocessed past their retries). A failed
 * transaction stored nothing; trying again later is safe. The domain answers it as 503
 * `unavailable` with Retry-After.
 */
export class StorageBusyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StorageBusyError';
  }
}

/** A throttling error of DynamoDB, thrown by the SDK or wrapped by ElectroDB (on `cause`). */
export const isThrottled = (error: unknown) => isNamed(error, THROTTLING);

/** Every reason is a conflict, throttling or none (the items that were fine): trying again may commit. */
export const onlyTransient = (codes: readonly (string | undefined)[]) =>
  codes.some((code) => code !== undefined && TRANSIENT_REASONS.has(code)) &&
  codes.every((code) => code === undefined || code === 'None' || TRANSIENT_REASONS.has(code));

/**
 * Storage that cannot take the request now, for the domain to answer as "try again later"
 * rather than as a bug: a StorageBusyError, or DynamoDB's throttling past the SDK's retries.
 */
export const isStorageBusy = (error: unknown) => error instanceof StorageBusyError || isThrottled(error);

/** What one attempt of a write answers when concurrent writes or throttling kept it out. */
export const BUSY = Symbol('busy');

export interface RetryBudget {
  /** Attempts at most (the first one included). */
  attempts?: number;
  /** Epoch ms: a busy attempt after it is the last. */
  until?: number;
  /** Another part of the same write gave up: stop at the next busy attempt. */
  stopped?: () => boolean;
  /** Names the write in the StorageBusyError. */
  what: string;
}

/**
 * Runs `attempt` until it answers anything but BUSY. Each busy attempt waits a jittered,
 * growing backoff first, so writers of the same items spread out instead of colliding
 * again; once the budget is spent the write is a StorageBusyError (it stored nothing more).
 */
export async function retryWhileBusy<T>(
  attempt: () => Promise<T | typeof BUSY>,
  { attempts = Number.POSITIVE_INFINITY, until = Number.POSITIVE_INFINITY, stopped, what }: RetryBudget,
): Promise<T> {
  for (let busy = 1; ; busy++) {
    const result = await attempt();
    if (result !== BUSY) return result;
    if (busy >= attempts || Date.now() >= until || stopped?.()) {
      throw new StorageBusyError(`${what} still kept out by conflicts or throttling after ${busy} attempts`);
    }
    const wait = Math.random() * Math.min(1_000, 10 * 2 ** busy);
    await sleep(Math.min(wait, Math.max(0, until - Date.now())));
  }
}
