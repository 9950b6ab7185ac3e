import { ALNUM, randomToken } from '#domain/random.ts';

// Ids and timestamps as Stripe writes them: a type prefix and random letters and digits;
// Unix seconds.

export const randomId = (prefix: string, length = 24): string => prefix + randomToken(length, ALNUM);

/** The API version the fake answers in and writes into its events. */
export const FAKE_STRIPE_API_VERSION = '2026-10-28.endive';

export function now(): number {
  return Math.floor(Date.now() / 1000);
}
