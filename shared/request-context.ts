import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * What one HTTP request accumulates deep below its handler: the DynamoDB requests it made
 * (counted by an SDK middleware, which sees no request of its own). AsyncLocalStorage keeps
 * requests apart when the local server runs several at once in one process.
 */
export interface RequestContext {
  dynamoRequests: number;
}

const storage = new AsyncLocalStorage<RequestContext>();
let processDynamoRequests = 0;

/** Runs `fn` as one request: what it calls, however deep, counts toward its context. */
export function runInRequestContext<T>(fn: () => Promise<T>): Promise<T> {
  return storage.run({ dynamoRequests: 0 }, fn);
}

/** The context of the request running now, if any. */
export function currentRequestContext(): RequestContext | undefined {
  return storage.getStore();
}

export function countDynamoRequest(): void {
  processDynamoRequests += 1;
  const context = storage.getStore();
  if (context) context.dynamoRequests += 1;
}

/** Every DynamoDB request this process made, for `npm run bench`. */
export function totalDynamoRequests(): number {
  return processDynamoRequests;
}
