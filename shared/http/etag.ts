import type { Writer } from '#domain/versions.ts';
import { etagOf, ifNoneMatchHits } from '#domain/versions.ts';
import type { HttpResult } from './responses.ts';

export { etagOf, ifNoneMatchHits };

type Headers = Record<string, string | undefined>;

/**
 * A v1 answer that returns one resource (or a list) with its ETag; a GET whose
 * If-None-Match names it is 304 with no body.
 */
export function tagged(status: 200 | 201, body: unknown, headers: Headers = {}, method = 'GET'): HttpResult {
  const etag = etagOf(body);
  if (method === 'GET' && ifNoneMatchHits(headers['if-none-match'], etag)) return { status: 304, headers: { etag } };
  return { status, body, headers: { etag } };
}

/** What a write action hands the domain: the key's id, and If-Match when sent. */
export const writerOf = (principal: { keyId: string }, headers: Headers): Writer => ({
  keyId: principal.keyId,
  ifMatch: headers['if-match'],
});
