import { ApiError } from './errors.ts';
import { isHash, type Params } from './form.ts';
import type { Reply } from './wire.ts';

// Idempotency keys as Stripe keeps them: per account, only successful results stored, a
// replay of the first answer for the same parameters and an error for different ones.

interface StoredIdempotent {
  fingerprint: string;
  reply: Reply;
  requestId: string;
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (isHash(value)) {
    const keys = Object.keys(value).sort();
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonical(value[key])}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

export function fingerprint(method: string, path: string, body: Params): string {
  return `${method} ${path} ${canonical(body)}`;
}

export class IdempotencyStore {
  /** By account and key, a space between: an account (an API key) holds none. */
  readonly #stored = new Map<string, StoredIdempotent>();

  /** The first answer given for this key, if any; an `idempotency_error` when the parameters differ. */
  previous(account: string, key: string, requestFingerprint: string): StoredIdempotent | undefined {
    const previous = this.#stored.get(`${account} ${key}`);
    if (previous && previous.fingerprint !== requestFingerprint) {
      throw new ApiError(400, {
        type: 'idempotency_error',
        message: `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${key}' if you meant to execute a different request.`,
      });
    }
    return previous;
  }

  save(account: string, key: string, stored: StoredIdempotent): void {
    this.#stored.set(`${account} ${key}`, stored);
  }

  clear(): void {
    this.#stored.clear();
  }
}
