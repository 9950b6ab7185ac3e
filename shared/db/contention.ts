// Storage's "not now": what the domain may answer with 503 and Retry-After instead of a 500.
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
export function isThrottled(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const cause = (error as Error & { cause?: unknown }).cause;
  return THROTTLING.has(error.name) || (cause instanceof Error && THROTTLING.has(cause.name));
}

/** Every reason is a conflict, throttling or none (the items that were fine): trying again may commit. */
export const onlyTransient = (codes: readonly (string | undefined)[]) =>
  codes.some((code) => code !== undefined && TRANSIENT_REASONS.has(code)) &&
  codes.every((code) => code === undefined || code === 'None' || TRANSIENT_REASONS.has(code));

/**
 * Storage that cannot take the request now, for the domain to answer as "try again later"
 * rather than as a bug: a StorageBusyError, or DynamoDB's throttling past the SDK's retries.
 */
export const isStorageBusy = (error: unknown) => error instanceof StorageBusyError || isThrottled(error);
