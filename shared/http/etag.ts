import type { Writer } from '#domain/versions.ts';
import { etagOf, etagOfJson, ifNoneMatchHits } from '#domain/versions.ts';
import type { HttpResult } from './responses.ts';

export { etagOf, ifNoneMatchHits };

type Headers = Record<string, string | undefined>;

/**
 * A v1 answer that returns one resource (or a list) with its ETag, the hash of exactly the
 * bytes sent, and headers of its own (e.g. caching). A GET passes its request's headers: when
 * If-None-Match names the tag, the answer is 304 with no body.
 */
export function tagged(
  status: 200 | 201,
  body: unknown,
  headers: Headers = {},
  own: Record<string, string> = {},
): HttpResult {
  const json = JSON.stringify(body);
  const etag = etagOfJson(json);
  if (ifNoneMatchHits(headers['if-none-match'], etag)) {
    return { status: 304, headers: { etag, ...own }, representationBytes: Buffer.byteLength(json) };
  }
  return { status, body, json, headers: { etag, ...own } };
}

/** What a write action hands the domain: the key's id, and If-Match when sent. */
export const writerOf = (principal: { keyId: string }, headers: Headers): Writer => ({
  keyId: principal.keyId,
  ifMatch: headers['if-match'],
});
