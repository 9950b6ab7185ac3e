import type { IdempotencyRecordItem } from './entities/idempotency.ts';
import { ifConditionFails } from './errors.ts';
import { db } from './service.ts';

export type { IdempotencyRecordItem };

/** A claim is the record while its request runs: no state (it is running) and no answer yet. */
export type IdempotencyClaim = Omit<IdempotencyRecordItem, 'state' | 'response'>;

/**
 * Claims a key for one request, in one conditional write: it succeeds when the key is new,
 * when its record has expired (TTL deletes lazily), or when the request that held it ran out
 * of time without finishing. Otherwise `'held'`: the caller reads the record.
 */
export async function claimIdempotencyKey(claim: IdempotencyClaim, now: number): Promise<'claimed' | 'held'> {
  const write = db()
    .entities.idempotencyRecord.put({ ...claim, state: 'running' })
    .where(
      ({ fingerprint, expiresAt, state, lockedUntil }, { notExists, lt, eq }) =>
        `${notExists(fingerprint)} OR ${lt(expiresAt, Math.floor(now / 1000))} OR (${eq(state, 'running')} AND ${lt(lockedUntil, now)})`,
    )
    .go({ response: 'none' });
  return (await ifConditionFails(write, 'held')) === 'held' ? 'held' : 'claimed';
}

export async function readIdempotencyRecord(ownerId: string, key: string): Promise<IdempotencyRecordItem | undefined> {
  const { data } = await db().entities.idempotencyRecord.get({ ownerId, key }).go({ consistent: true });
  return data ?? undefined;
}

/** Keeps the answer, if this request still holds the key. */
export async function completeIdempotencyKey(
  ownerId: string,
  key: string,
  token: string,
  response: string,
  expiresAt: number,
): Promise<'kept' | 'lost'> {
  const write = db()
    .entities.idempotencyRecord.patch({ ownerId, key })
    .set({ state: 'done', response, expiresAt })
    .where(({ token: held }, { eq }) => eq(held, token))
    .go({ response: 'none' });
  return (await ifConditionFails(write, 'lost')) === 'lost' ? 'lost' : 'kept';
}

/** Lets the key go (an answer that is not kept), if this request still holds it. */
export async function releaseIdempotencyKey(ownerId: string, key: string, token: string): Promise<void> {
  const write = db()
    .entities.idempotencyRecord.delete({ ownerId, key })
    .where(({ token: held }, { eq }) => eq(held, token))
    .go({ response: 'none' });
  await ifConditionFails(write, 'lost');
}
