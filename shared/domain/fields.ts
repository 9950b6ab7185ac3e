import * as z from 'zod';
import { limits } from '#contract/limits.ts';
import { lazySchema } from './validation.ts';

/** Field schemas shared by the request bodies of several resources. */

/**
 * The text rule. Single-line texts (names, `condition`, `fontFamily`) refuse
 * Unicode categories Cc (controls: NUL, ESC, DEL, C1) and Cs (a lone surrogate, which DynamoDB
 * cannot store as UTF-8), the bidi embeddings, overrides and isolates (U+202A–U+202E,
 * U+2066–U+2069), and values with no visible character. Multi-line texts (descriptions) refuse
 * the same, except tab, line feed and carriage return, and may be empty. Both are stored in
 * NFC; their length is counted in code points (as zod counts) of the NFC form.
 */
const loneSurrogate = /\p{Cs}/u;
const lineControl = /\p{Cc}/u;
const blockControl = /(?![\t\n\r])\p{Cc}/u;
const bidiControl = /[\u202A-\u202E\u2066-\u2069]/u;
/**
 * Visible: a letter, number, punctuation mark or symbol (General Category L, N, P, S) that is
 * not Default_Ignorable_Code_Point (which takes out fillers such as U+3164 HANGUL FILLER).
 */
const visibleCharacter = /(?!\p{Default_Ignorable_Code_Point})[\p{L}\p{N}\p{P}\p{S}]/u;

const refused = (error: string) => ({ error, abort: true });

/** Adds the character rules to a string schema: one message per field, the first that applies. */
function withCharacterRules(schema: z.ZodString, control: RegExp): z.ZodString {
  return schema
    .refine((value) => !loneSurrogate.test(value), refused('must be valid Unicode: it holds a lone surrogate'))
    .refine((value) => !control.test(value), refused('must not contain control characters'))
    .refine(
      (value) => !bidiControl.test(value),
      refused('must not contain bidirectional control characters (U+202A–U+202E, U+2066–U+2069)'),
    );
}

const upTo = (max: number) => refused(`must be at most ${max} characters`);

/** A single-line text: trimmed, NFC, not empty, at most `max` long, with a visible character. */
export const singleLineText = (max: number) =>
  withCharacterRules(
    z.string().trim().normalize('NFC').min(1, refused('must not be empty')).max(max, upTo(max)),
    lineControl,
  ).refine(
    (value) => visibleCharacter.test(value),
    refused('must contain a visible character (a letter, digit, punctuation mark or symbol)'),
  );

export const name = lazySchema(() => singleLineText(limits.nameMax));

/** A multi-line text (a description): NFC, at most `max` long, may be empty, kept as sent otherwise. */
export const multiLineText = (max: number) =>
  withCharacterRules(z.string().normalize('NFC').max(max, upTo(max)), blockControl);

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

export const price = lazySchema(() => amount(limits.priceMax));
export const multiplier = lazySchema(() => amount(limits.multiplierMax));

const largestId = Number.MAX_SAFE_INTEGER;
const wholeNumber = refused('must be a positive whole number');
const tooLarge = refused(`must be at most ${largestId}`);

/** Ids sent in a body: a positive whole number that stays exact as a JavaScript number (≤ 2^53 − 1). */
export const positiveId = lazySchema(() =>
  z
    .number({ error: 'must be a positive whole number' })
    .max(largestId, tooLarge)
    .int(wholeNumber)
    .positive(wholeNumber),
);

/**
 * Up to 16 digits without a leading zero, converted to a number. Past 2^53 − 1 the conversion
 * rounds (9999999999999999 becomes 10000000000000000) and the result is no longer a safe
 * integer, so `Number.isSafeInteger` after it refuses exactly the ids that lost precision.
 */
const digits = /^[1-9][0-9]{0,15}$/;

/** The same, from a query-string value: past 2^53 − 1 it is a 400, like a body id. */
export const positiveIdString = lazySchema(() =>
  z
    .string({ error: 'is required' })
    .regex(digits, wholeNumber)
    .transform(Number)
    .refine(Number.isSafeInteger, tooLarge),
);

const isHttpUrl = (value: string) => {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
};

/**
 * URLs keep the characters they were sent with (no NFC: that could change where a URL leads),
 * but refuse what the text rule refuses.
 */
export const httpUrl = lazySchema(() =>
  withCharacterRules(
    z
      .string()
      .trim()
      .max(limits.urlMax, upTo(limits.urlMax))
      .refine(isHttpUrl, refused('must be an absolute http(s) URL')),
    lineControl,
  ),
);

export const currency = lazySchema(() => {
  const currencies = new Set(Intl.supportedValuesOf('currency'));
  return z
    .string()
    .regex(/^[A-Za-z]{3}$/, 'must be a three-letter ISO 4217 code such as USD')
    .transform((code) => code.toUpperCase())
    .refine((code) => currencies.has(code), 'is not an ISO 4217 currency code');
});

/** A subscription's seats, as checkout, a grant and a plan change take them. */
export const seats = lazySchema(() =>
  z
    .number({ error: 'must be a whole number of seats' })
    .int('must be a whole number of seats')
    .min(1, 'must be at least 1')
    .max(limits.seatsMax, `must be at most ${limits.seatsMax}`),
);

export const email = lazySchema(() =>
  z.email({ error: 'must be an e-mail address' }).max(limits.emailMax, `must be at most ${limits.emailMax} characters`),
);

/** The share a widget's call names in its body. */
export const shareIdField = lazySchema(() =>
  z.string({ error: 'is required' }).min(1, 'is required').max(200, 'is not a share id'),
);

/**
 * Ids in a path: positive whole numbers that stay exact as JavaScript numbers (≤ 2^53 − 1).
 * Anything else names nothing: the HTTP layer answers 404.
 */
export const pathIdString = lazySchema(() => z.string().regex(digits).transform(Number).refine(Number.isSafeInteger));

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
