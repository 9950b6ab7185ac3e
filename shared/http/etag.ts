import { createHash } from 'node:crypto';

/** A strong ETag over the JSON the response will carry. */
export function etagOf(body: unknown): string {
  return `"${createHash('sha256').update(JSON.stringify(body)).digest('base64url').slice(0, 32)}"`;
}

/** If-None-Match may list several tags, weak ones (W/"...") included, or be "*". */
export function ifNoneMatchHits(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header
    .split(',')
    .map((tag) => tag.trim().replace(/^W\//, ''))
    .some((tag) => tag === '*' || tag === etag);
}
