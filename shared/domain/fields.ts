import { z } from 'zod';
import { limits } from '#contract/limits.ts';

/** Field schemas shared by the request bodies of several resources. */

export const name = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(limits.nameMax, `must be at most ${limits.nameMax} characters`);

export const text = (max: number) => z.string().max(max, `must be at most ${max} characters`);

/**
 * A non-negative number that DynamoDB can store: its numbers stop at 1e-130, so a positive
 * value below the smallest step we allow (1e-9) is refused rather than failing the write.
 */
export const amount = (max: number) =>
  z
    .number()
    .min(0, 'must be 0 or more')
    .max(max, `must be at most ${max}`)
    .refine(
      (value) => value === 0 || value >= limits.smallestPositive,
      `must be 0 or at least ${limits.smallestPositive}`,
    );

export const price = amount(limits.priceMax);
export const multiplier = amount(limits.multiplierMax);

/** Ids sent in a body or query: a positive whole number. */
export const positiveId = z
  .number({ error: 'must be a positive whole number' })
  .int('must be a positive whole number')
  .positive('must be a positive whole number')
  .max(Number.MAX_SAFE_INTEGER, 'is too large');

/** The same, from a query-string value. */
export const positiveIdString = z
  .string({ error: 'is required' })
  .regex(/^[1-9][0-9]{0,15}$/, 'must be a positive whole number')
  .transform(Number);

const isHttpUrl = (value: string) => {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
};

export const httpUrl = z
  .string()
  .trim()
  .max(limits.urlMax, `must be at most ${limits.urlMax} characters`)
  .refine(isHttpUrl, 'must be an absolute http(s) URL');

const currencies = new Set(Intl.supportedValuesOf('currency'));

export const currency = z
  .string()
  .regex(/^[A-Za-z]{3}$/, 'must be a three-letter ISO 4217 code such as USD')
  .transform((code) => code.toUpperCase())
  .refine((code) => currencies.has(code), 'is not an ISO 4217 currency code');

/**
 * Ids in a path: positive whole numbers that stay exact as JavaScript numbers (≤ 2^53 − 1).
 * Anything else names nothing: the HTTP layer answers 404.
 */
export const pathIdString = z
  .string()
  .regex(/^[1-9][0-9]{0,15}$/)
  .transform(Number)
  .refine((id) => Number.isSafeInteger(id));

/** Removes keys whose value is undefined, so a partial update only names what was sent. */
export function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** Removes keys whose value is null or undefined. */
export function withoutNulls<T extends object>(value: T): { [K in keyof T]?: Exclude<T[K], null> } {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined && v !== null)) as {
    [K in keyof T]?: Exclude<T[K], null>;
  };
}
