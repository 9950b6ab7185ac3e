import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { apiRequest } from '#dev/api-request.ts';
import { createApiKey } from '#domain/keys/keys.ts';
import { totalDynamoRequests } from '#shared/request-context.ts';

/**
 * What every row of `npm run bench` shares: the row and its summary, the timing loop, the
 * JSON caller of the local server, a key kept warm, and the printed table.
 */

export interface Row {
  label: string;
  requestsMin: number;
  requestsMax: number;
  p50: number;
  p95: number;
  size: string;
}

/** What a group of rows runs against: the bench's table and server, a key and its settings. */
export interface BenchOn {
  client: DynamoDBDocumentClient;
  table: string;
  serverUrl: string;
  key: string;
  ownerId: string;
  iterations: number;
  /** The server's project cache TTL, for the use cases called in process. */
  cacheTtlMs: number;
}

/** A bench's own failure: the run prints its message and exits 1. */
export class BenchError extends Error {}

/** Nearest-rank percentile of an ascending list: always one of the measured values. */
const percentile = (sorted: readonly number[], p: number) =>
  sorted.length === 0
    ? Number.NaN
    : (sorted[Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length))) - 1] as number);

export function summarize(label: string, latencies: number[], requests: number[], size: string): Row {
  const sorted = [...latencies].sort((a, b) => a - b);
  return {
    label,
    requestsMin: Math.min(...requests),
    requestsMax: Math.max(...requests),
    p50: percentile(sorted, 50),
    p95: percentile(sorted, 95),
    size,
  };
}

export const range = (min: number, max: number) => (min === max ? String(min) : `${min}-${max}`);

/**
 * `work` run `warmup` times untimed, then `iterations` times timed, with the DynamoDB requests
 * each call made: the server runs in this process and calls are sequential, so the whole
 * delta is the call's.
 */
export async function timed(
  label: string,
  size: string,
  iterations: number,
  work: (i: number) => Promise<unknown>,
  warmup = 20,
): Promise<Row> {
  const latencies: number[] = [];
  const requests: number[] = [];
  for (let i = 0; i < warmup + iterations; i++) {
    const before = totalDynamoRequests();
    const start = performance.now();
    await work(i);
    if (i < warmup) continue;
    latencies.push(performance.now() - start);
    requests.push(totalDynamoRequests() - before);
  }
  return summarize(label, latencies, requests, size);
}

/** Calls the API at `serverUrl` with `key()`: the answer parsed, or a BenchError unless the status is `expected`. */
export function apiCaller(serverUrl: string, key: () => string) {
  // biome-ignore lint/suspicious/noExplicitAny: the benches read a few fields of each answer and check them
  return async (method: string, path: string, expected: number, body?: unknown): Promise<any> => {
    const { status, text } = await apiRequest(`${serverUrl}${path}`, key(), method, body);
    if (status !== expected) throw new BenchError(`${method} ${path}: expected ${expected}, got ${status}: ${text}`);
    return text ? JSON.parse(text) : undefined;
  };
}

/** The service's key cache keeps a key's record for 60 s from its first use. */
export const KEY_CACHE_TTL_SECONDS = 60;
// Well inside the key cache's TTL, so no measured request is the one that refreshes it.
const KEY_ROTATION_MS = (KEY_CACHE_TTL_SECONDS * 1000) / 2;

/**
 * An API key of `ownerId` whose cached record stays warm: `keepWarm` (between measured calls)
 * swaps in a fresh key, used once, before the current one's cache entry could expire, however
 * long a run takes.
 */
export async function warmKey(ownerId: string, serverUrl: string) {
  const issue = async () => (await createApiKey({ ownerId, permission: 'read_write' })).key;
  let key = await issue();
  let issuedAt = performance.now();
  return {
    key: () => key,
    keepWarm: async () => {
      if (performance.now() - issuedAt < KEY_ROTATION_MS) return;
      key = await issue();
      issuedAt = performance.now();
      await apiRequest(`${serverUrl}/api/v1/projects?limit=1`, key, 'GET');
    },
  };
}

/** `fn` over 0…count − 1, `size` at a time. */
export async function inBatches<R>(count: number, fn: (i: number) => Promise<R>, size = 5): Promise<R[]> {
  const results: R[] = [];
  for (let i = 0; i < count; i += size) {
    results.push(...(await Promise.all(Array.from({ length: Math.min(size, count - i) }, (_, j) => fn(i + j)))));
  }
  return results;
}

export function printTable(rows: Row[]): void {
  printColumns(
    ['endpoint', 'dynamo req/call', 'p50 ms', 'p95 ms', 'bytes'],
    rows.map((r) => [r.label, range(r.requestsMin, r.requestsMax), r.p50.toFixed(2), r.p95.toFixed(2), r.size]),
  );
}

/** `cells` under `header`, each column as wide as its widest cell; the first `left` left-aligned, the rest right. */
export function printColumns(header: string[], cells: string[][], left = 1): void {
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => (c[i] as string).length)));
  const line = (c: string[]) =>
    c.map((v, i) => (i < left ? v.padEnd(widths[i] ?? 0) : v.padStart(widths[i] ?? 0))).join(' | ');
  console.log(line(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('-|-'));
  for (const c of cells) console.log(line(c));
}
