import { createHash } from 'node:crypto';
import { ConflictError, PreconditionFailedError } from './errors.ts';

/**
 * Versions of v1 resources (decisions.md, "Scripting v1 safely"; docs/decisions.md "ETag and
 * If-Match"). A resource's version is its ETag: a strong tag over the JSON of the
 * representation its GET or PUT answers, so it changes exactly when that representation
 * does (a project's with any of its features, plans or assignments, a plan's with a feature
 * it shows). `If-Match` is compared with the representation of a consistent read, and the
 * write that follows is conditioned on the project's stored `revision` of that read, which
 * every write in the project moves: so the check and the write are one atomic step.
 */

/** A strong ETag over the JSON the response will carry. */
export function etagOf(body: unknown): string {
  return etagOfJson(JSON.stringify(body));
}

/** The same ETag, over the JSON text itself when the caller already has it (and sends exactly it). */
export function etagOfJson(json: string): string {
  return `"${createHash('sha256').update(json).digest('base64url').slice(0, 32)}"`;
}

/** If-None-Match may list several tags, weak ones (W/"...") included, or be "*": weak comparison. */
export function ifNoneMatchHits(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header
    .split(',')
    .map((tag) => tag.trim().replace(/^W\//, ''))
    .some((tag) => tag === '*' || tag === etag);
}

/** If-Match compares strongly: a weak tag never matches; "*" matches any current version. */
export function ifMatchHits(header: string, etag: string): boolean {
  return header
    .split(',')
    .map((tag) => tag.trim())
    .some((tag) => tag === '*' || tag === etag);
}

/** Throws 412 unless `ifMatch` is absent or names the current representation. */
export function checkIfMatch(ifMatch: string | undefined, current: unknown): void {
  if (ifMatch !== undefined && !ifMatchHits(ifMatch, etagOf(current))) throw new PreconditionFailedError();
}

/** Who writes, and on which condition: the key's id (for the change log) and its If-Match. */
export interface Writer {
  keyId: string;
  ifMatch?: string | undefined;
}

/**
 * The project revision to guard a write with, from the project as read: when the caller
 * sent If-Match, that revision (0 while none is stored); none otherwise, so the write
 * commits whatever else changed.
 */
export const revisionGuard = (writer: Writer, revision: number | undefined): number | undefined =>
  writer.ifMatch === undefined ? undefined : (revision ?? 0);

const MAX_ATTEMPTS = 5;

/**
 * Runs a read-check-write `attempt` until it commits: it answers 'stale' when what it read
 * changed before its write (then it reads again, and an If-Match that no longer holds is a 412
 * on that read). `what` names the resource for the 409 when it never settles.
 */
export async function untilWritten<T>(what: string, attempt: () => Promise<T | 'stale'>): Promise<T> {
  for (let i = 0; i < MAX_ATTEMPTS; i++) {
    const result = await attempt();
    if (result !== 'stale') return result;
  }
  throw new ConflictError(`The ${what} kept changing while this change was applied; retry it.`);
}
