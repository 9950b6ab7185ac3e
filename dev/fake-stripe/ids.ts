import { ALNUM, randomToken } from '#domain/random.ts';

// Ids and timestamps as Stripe writes them: a type prefix and random letters and digits;
// Unix seconds.

export const randomId = (prefix: string, length = 24): string => prefix + randomToken(length, ALNUM);

export function now(): number {
  return Math.floor(Date.now() / 1000);
}
