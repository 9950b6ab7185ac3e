import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { ContendedError, PreconditionFailedError, UnavailableError } from './errors.ts';

/**
 * Versions of v1 resources (docs/decisions.md, "ETag, If-Match and the change log"). A resource's version is its ETag: a strong tag over the JSON of the
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

/**
 * Throws 412 unless `ifMatch` is absent or names the current representation. If-Match compares
 * strongly: a weak tag never matches; "*" matches any current version.
 */
export function checkIfMatch(ifMatch: string | undefined, current: unknown): void {
  if (ifMatch === undefined) return;
  const etag = etagOf(current);
  if (!ifMatch.split(',').some((tag) => tag.trim() === '*' || tag.trim() === etag)) throw new PreconditionFailedError();
}

/** Who writes, and on which condition: the key's id (for the change log) and its If-Match. */
export interface Writer {
  keyId: string;
  ifMatch?: string | undefined;
}

/**
 * The project revision to guard a write with, from the project as read: when the caller
 * sent If-Match, that revision; none otherwise, so the write commits whatever else changed.
 */
export const revisionGuard = (writer: Writer, revision: number): number | undefined =>
  writer.ifMatch === undefined ? undefined : revision;

/** Rounds of a write with If-Match: each compares it again, so few are needed (docs/decisions.md, "ETag, If-Match and the change log"). */
const GUARDED_ATTEMPTS = 5;
/** Rounds of a plain write: it must not fail because others write, so it outlasts a burst of them. */
const PLAIN_ATTEMPTS = 40;
/** The most a round waits before reading again (full jitter, doubling from 10 ms). */
const MAX_BACKOFF_MS = 250;

/**
 * Runs a read-check-write `attempt` until it commits: it answers 'stale' when what it read
 * changed before its write; then it waits a random moment, so writers that met each other
 * spread out, and reads again (an If-Match that no longer holds is a 412 on that read). A
 * plain write wins in the end, each field the last written; one with If-Match that keeps
 * meeting others gives up after a few rounds with a 409 and Retry-After, and a plain one that
 * never settles is a 503 with Retry-After. `what` names the resource.
 */
export async function untilWritten<T>(
  what: string,
  writer: Pick<Writer, 'ifMatch'>,
  attempt: () => Promise<T | 'stale'>,
): Promise<T> {
  const guarded = writer.ifMatch !== undefined;
  const attempts = guarded ? GUARDED_ATTEMPTS : PLAIN_ATTEMPTS;
  for (let i = 0; i < attempts; i++) {
    if (i > 0) await sleep(Math.random() * Math.min(MAX_BACKOFF_MS, 10 * 2 ** i));
    const result = await attempt();
    if (result !== 'stale') return result;
  }
  const message = `The ${what} kept changing while this change was applied; send it again.`;
  throw guarded ? new ContendedError(message) : new UnavailableError(message);
}
