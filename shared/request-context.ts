import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * What one HTTP request accumulates while it runs: the DynamoDB requests it made (counted
 * by an SDK middleware) and, for a 5xx, the error to log. AsyncLocalStorage keeps requests
 * apart when the local server runs several at once in one process.
 */
export interface RequestContext {
  dynamoRequests: number;
  failure?: { name: string; message: string; stack?: string | undefined };
  /** Who asked, once a key was accepted: its id and owner, never the key. */
  caller?: { keyId: string; ownerId: string };
  /** Set when the request holds an Idempotency-Key: called with its answer, whatever it is. */
  finishIdempotent?: (answer: { status: number; headers?: Record<string, string>; body?: unknown }) => Promise<void>;
}

const storage = new AsyncLocalStorage<RequestContext>();
let processDynamoRequests = 0;

export function runInRequestContext<T>(fn: () => Promise<T>): { context: RequestContext; result: Promise<T> } {
  const context: RequestContext = { dynamoRequests: 0 };
  return { context, result: storage.run(context, fn) };
}

export function recordCaller(keyId: string, ownerId: string): void {
  const context = storage.getStore();
  if (context) context.caller = { keyId, ownerId };
}

export function onIdempotentFinish(finish: NonNullable<RequestContext['finishIdempotent']>): void {
  const context = storage.getStore();
  if (context) context.finishIdempotent = finish;
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
