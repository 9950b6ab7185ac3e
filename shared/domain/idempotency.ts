import { createHash } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import {
  claimIdempotencyKey,
  completeIdempotencyKey,
  readIdempotencyRecord,
  releaseIdempotencyKey,
} from '#db/idempotency.ts';
import { log } from '#shared/logger.ts';
import { ConflictError, ValidationError } from './errors.ts';
import { LOWER_ALNUM, randomToken } from './random.ts';

/**
 * Idempotency-Key on v1 POSTs: the first answer (status and body) is
 * kept for 24 h per owner and key and replayed to the same key with the same body; another
 * body, another route or method, or a first request still running is 409 `conflict`. Every
 * answer but 409, 429 and 5xx is kept, so a retry after one of those runs again.
 */
export const KEPT_FOR_SECONDS = 24 * 60 * 60;
const KEY_PATTERN = /^[\x20-\x7E]{1,255}$/;

/** What a kept answer holds: enough to send it again. */
export interface KeptAnswer {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
}

export type IdempotentStart =
  | { kind: 'replay'; answer: KeptAnswer }
  | { kind: 'first'; finish(answer: KeptAnswer): Promise<void> };

/** 400 for a key that is empty, too long, or not printable ASCII. */
export function checkIdempotencyKey(key: string): string {
  if (KEY_PATTERN.test(key)) return key;
  throw new ValidationError('Idempotency-Key must be 1–255 printable ASCII characters.', [
    { path: 'Idempotency-Key', message: 'must be 1–255 printable ASCII characters' },
  ]);
}

/** JSON with its object keys sorted, so bodies compare as parsed JSON, not as bytes. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'undefined';
}

/** A body's fingerprint: parsed JSON compared as JSON; anything else by its text. */
export function bodyFingerprint(text: string): string {
  let form: string;
  try {
    form = `json:${canonical(JSON.parse(text))}`;
  } catch {
    form = `text:${text}`;
  }
  return createHash('sha256').update(form).digest('base64url');
}

const isKept = (status: number) => status !== 409 && status !== 429 && status < 500;

const pack = (answer: KeptAnswer) => gzipSync(JSON.stringify(answer)).toString('base64');
const unpack = (stored: string): KeptAnswer => JSON.parse(gunzipSync(Buffer.from(stored, 'base64')).toString('utf8'));

/** A kept answer must fit a DynamoDB item (400 KB) beside its keys. */
const KEPT_BYTES_MAX = 350_000;

export interface IdempotentRequest {
  ownerId: string;
  key: string;
  routeKey: string;
  fingerprint: string;
  /** How long the first request may run before its claim counts as abandoned. */
  runsForMs: number;
}

/**
 * Starts a request under its key: the first gets `finish`, to call with its answer; a
 * repeat of a finished one gets the kept answer; anything else is a ConflictError.
 */
export async function startIdempotent(request: IdempotentRequest, now = Date.now()): Promise<IdempotentStart> {
  const { ownerId, key, routeKey, fingerprint } = request;
  const token = randomToken(20, LOWER_ALNUM);
  const claim = {
    ownerId,
    key,
    routeKey,
    fingerprint,
    token,
    lockedUntil: now + request.runsForMs,
    expiresAt: Math.floor(now / 1000) + KEPT_FOR_SECONDS,
  };
  // Twice at most: a record read as gone between the claim and the read is claimed again.
  for (let attempt = 0; attempt < 2; attempt++) {
    if ((await claimIdempotencyKey(claim, now)) === 'claimed') {
      return { kind: 'first', finish: (answer) => finish(ownerId, key, token, answer) };
    }
    const record = await readIdempotencyRecord(ownerId, key);
    if (!record) continue;
    if (record.routeKey !== routeKey) {
      throw new ConflictError(`This Idempotency-Key was used for ${record.routeKey}; use a new key for ${routeKey}.`);
    }
    if (record.fingerprint !== fingerprint) {
      throw new ConflictError('This Idempotency-Key was used with another body; use a new key for a new request.');
    }
    if (record.state === 'running' || !record.response) {
      throw new ConflictError('A request with this Idempotency-Key is still running; retry once it has finished.');
    }
    return { kind: 'replay', answer: unpack(record.response) };
  }
  throw new ConflictError('This Idempotency-Key is changing hands; retry in a moment.');
}

async function finish(ownerId: string, key: string, token: string, answer: KeptAnswer): Promise<void> {
  if (!isKept(answer.status)) return releaseIdempotencyKey(ownerId, key, token);
  let packed = pack(answer);
  if (packed.length > KEPT_BYTES_MAX) {
    // Too large to keep whole: the replay says what happened and where to read the rest.
    packed = pack({
      status: answer.status,
      body: { replayed: true, message: 'The first answer was too large to keep; read the resource with GET.' },
    });
  }
  const expiresAt = Math.floor(Date.now() / 1000) + KEPT_FOR_SECONDS;
  if ((await completeIdempotencyKey(ownerId, key, token, packed, expiresAt)) === 'lost') {
    log({ level: 'error', msg: 'idempotency: the key was claimed by another request before this one finished' });
  }
}
