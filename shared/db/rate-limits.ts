import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { isConditionalCheckFailed } from './errors.ts';
import { db, rawTable } from './service.ts';

/**
 * A sliding-window limit, "at most `limit` calls in any `windowSeconds`", kept in one item per
 * key and enforced by DynamoDB itself, so it holds across every function instance.
 *
 * Time is cut into seconds. The item holds, for each second j of the last window, `w<j>`:
 * the number of calls admitted since the start of second j. A call in second b adds 1 to
 * `w<b-W>` … `w<b>` (W = windowSeconds) and is admitted only if `w<b-W>` (every call since
 * the start of second b−W, a span that holds the last W seconds) is under the limit: one
 * UpdateItem with that condition, which DynamoDB applies to concurrent calls one at a time.
 * So no W-second span ever holds more than `limit` admissions, whatever the concurrency; the
 * span counted is W to W+1 seconds long, so a call may wait up to 1 s longer than a
 * per-millisecond log would make it (Retry-After is in whole seconds anyway).
 *
 * The item stays small: each call removes the counters that fell out of the window, and a
 * call after a pause (no call in the last window, `lastSecond` too old) replaces the whole
 * item with a conditional PutItem instead. Which of the two a call tries first is guessed
 * from what this process last saw of the key; a wrong guess costs a second request, never
 * a third: a call costs one DynamoDB request, at most two.
 */

export interface WindowLimit {
  limit: number;
  windowSeconds: number;
}

/** Whose calls one window counts: a project's, all of them or one scope's (a client address). */
export interface WindowKey {
  projectId: number;
  scope: string;
}

/** Refused: the window is full; one more call will be admitted from `retryAtMs` on (if no one else takes it). */
export interface LimitReached {
  outcome: 'limit_reached';
  retryAtMs: number;
}

/** The last second this process saw a call admitted for a key: which write to try first. */
const lastSeen = new Map<string, number>();
const LAST_SEEN_MAX = 10_000;

const seenKey = ({ projectId, scope }: WindowKey) => `${projectId}#${scope}`;
const remember = (key: WindowKey, second: number) => {
  if (lastSeen.size >= LAST_SEEN_MAX) lastSeen.clear();
  lastSeen.set(seenKey(key), Math.max(second, lastSeen.get(seenKey(key)) ?? second));
};

const counter = (second: number) => `w${second}`;
const range = (from: number, to: number) => Array.from({ length: Math.max(0, to - from + 1) }, (_, i) => from + i);
/**
 * How far apart two instances' clocks may be. A call also counts in the counters of the
 * CLOCK_MARGIN seconds before its window, so an instance whose clock is behind (it checks an
 * older counter) still sees the calls another admitted "later"; without it, two instances
 * either side of a second's boundary could each admit a full window. Lambda's clocks are
 * synchronised to within milliseconds.
 */
const CLOCK_MARGIN = 2;
/** The counters a call in `second` adds 1 to. */
const countedIn = (second: number, windowSeconds: number) => range(second - windowSeconds - CLOCK_MARGIN, second);

/** A number attribute of an item returned with a failed condition (marshalled) or plain. */
function numberOf(item: Record<string, unknown> | undefined, name: string): number | undefined {
  const value = item?.[name];
  if (typeof value === 'number') return value;
  const marshalled = (value as { N?: string } | undefined)?.N;
  return marshalled === undefined ? undefined : Number(marshalled);
}

/** When the stored counters leave room for one more call, were no other call admitted. */
function retryAt(item: Record<string, unknown> | undefined, second: number, { limit, windowSeconds }: WindowLimit) {
  // From second t on, what counts is w<t-W>, which the item holds for t-W <= second (a
  // missing counter: nothing admitted since that second's start).
  for (let t = second + 1; t - windowSeconds <= second; t++) {
    if ((numberOf(item, counter(t - windowSeconds)) ?? 0) < limit) return t * 1000;
  }
  return (second + windowSeconds + 1) * 1000;
}

type Attempt = 'admitted' | { refused: Record<string, unknown> | undefined };

async function attempt(write: Promise<unknown>): Promise<Attempt> {
  try {
    await write;
    return 'admitted';
  } catch (error) {
    if (!isConditionalCheckFailed(error)) throw error;
    return { refused: (error as { Item?: Record<string, unknown> }).Item };
  }
}

const expiresAt = (second: number, windowSeconds: number) => second + windowSeconds + 1 + CLOCK_MARGIN;

/**
 * The usual write: count a call of `second` in the window's counters, if the oldest is under
 * the limit. `lastSecond`, the latest second admitted, only grows: a call whose second is
 * behind it (its clock read before another's, its write after) is `late`, and is admitted
 * only within CLOCK_MARGIN of it, which its counters cover; further behind, it is refused
 * and the caller reads the clock again.
 */
function countInWindow(key: WindowKey, second: number, { limit, windowSeconds }: WindowLimit, late = false) {
  const { client, table } = rawTable();
  const oldest = second - windowSeconds;
  const counted = countedIn(second, windowSeconds).map(counter);
  // What the calls of the last window (and a little more) added, below what this one adds.
  const stale = range(oldest - CLOCK_MARGIN - windowSeconds - 1 - CLOCK_MARGIN, oldest - CLOCK_MARGIN - 1).map(counter);
  return client.send(
    new UpdateCommand({
      TableName: table,
      Key: db().entities.rateLimit.get(key).params().Key,
      // A call in the last window (else the counters may be stale: see startWindow), none
      // admitted at a later second (or, late, past the margin), and room in the window.
      ConditionExpression: `lastSecond BETWEEN :recent AND :newest AND (attribute_not_exists(${counter(oldest)}) OR ${counter(oldest)} < :limit)`,
      UpdateExpression: [
        `ADD ${counted.map((name) => `${name} :one`).join(', ')}`,
        ...(late ? [] : ['SET lastSecond = :second, expiresAt = :expiresAt']),
        `REMOVE ${stale.join(', ')}`,
      ].join(' '),
      ExpressionAttributeValues: {
        ':recent': oldest - CLOCK_MARGIN - 1,
        ':newest': late ? second + CLOCK_MARGIN : second,
        ':limit': limit,
        ':one': 1,
        ...(late ? {} : { ':second': second, ':expiresAt': expiresAt(second, windowSeconds) }),
      },
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    }),
  );
}

/** After a pause (or the first call ever): a fresh item holding this one call, unless a call came meanwhile. */
function startWindow(key: WindowKey, second: number, { windowSeconds }: WindowLimit) {
  const { client, table } = rawTable();
  const oldest = second - windowSeconds;
  const { Item } = db()
    .entities.rateLimit.put({ ...key, expiresAt: expiresAt(second, windowSeconds) })
    .params();
  const counters = Object.fromEntries(countedIn(second, windowSeconds).map((s) => [counter(s), 1]));
  return client.send(
    new PutCommand({
      TableName: table,
      Item: { ...Item, lastSecond: second, ...counters },
      // Nothing admitted in this window (by any clock within the margin): nothing to keep.
      ConditionExpression: 'attribute_not_exists(lastSecond) OR lastSecond < :before',
      ExpressionAttributeValues: { ':before': oldest - CLOCK_MARGIN },
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    }),
  );
}

/** The first write was refused; from what it saw (`item`), the second one to try, if any. */
function secondAttempt(
  key: WindowKey,
  item: Record<string, unknown> | undefined,
  second: number,
  spec: WindowLimit,
): Promise<unknown> | undefined {
  const last = numberOf(item, 'lastSecond');
  if (last === undefined || last < second - spec.windowSeconds - CLOCK_MARGIN - 1) {
    return startWindow(key, second, spec);
  }
  if ((numberOf(item, counter(second - spec.windowSeconds)) ?? 0) >= spec.limit) return undefined;
  if (last <= second) return countInWindow(key, second, spec);
  if (last <= second + CLOCK_MARGIN) return countInWindow(key, second, spec, true);
  return undefined;
}

/**
 * Counts one call in `key`'s window at the time `now()` gives: 'admitted', or the
 * window is full and when it next has room.
 */
export async function admitCall(
  key: WindowKey,
  now: () => number,
  spec: WindowLimit,
): Promise<'admitted' | LimitReached> {
  const first = Math.floor(now() / 1000);
  const recent =
    (lastSeen.get(seenKey(key)) ?? Number.NEGATIVE_INFINITY) >= first - spec.windowSeconds - CLOCK_MARGIN - 1;
  let result = await attempt(recent ? countInWindow(key, first, spec) : startWindow(key, first, spec));
  let second = first;
  if (result !== 'admitted') {
    // A wrong guess, a late clock reading or a full window: at most one more write, at the time now.
    second = Math.floor(now() / 1000);
    const retry = secondAttempt(key, result.refused, second, spec);
    if (retry) result = await attempt(retry);
  }
  if (result === 'admitted') {
    remember(key, second);
    return 'admitted';
  }
  const last = numberOf(result.refused, 'lastSecond');
  if (last !== undefined) remember(key, last);
  return { outcome: 'limit_reached', retryAtMs: retryAt(result.refused, second, spec) };
}
