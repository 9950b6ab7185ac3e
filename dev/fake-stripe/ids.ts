import { randomInt } from 'node:crypto';

// Ids and timestamps as Stripe writes them: a type prefix and random letters and digits;
// Unix seconds.

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

export function randomId(prefix: string, length = 24): string {
  let id = prefix;
  for (let i = 0; i < length; i++) id += ALNUM[randomInt(ALNUM.length)];
  return id;
}

export function now(): number {
  return Math.floor(Date.now() / 1000);
}
