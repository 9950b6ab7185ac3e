import { describe, expect, test } from 'vitest';
import type { z } from 'zod';
import { CreateFeatureBody, UpdateFeatureBody } from '#domain/features/schemas.ts';
import { httpUrl, positiveId, positiveIdString } from '#domain/fields.ts';
import { NewKeyInput } from '#domain/keys/keys.ts';
import { AddPlanFeaturesBody, CreatePlanBody, DuplicatePlanBody, UpdatePlanBody } from '#domain/plans/schemas.ts';
import { CreateProjectBody, ThemePatch, UpdateProjectBody } from '#domain/projects/schemas.ts';

/** The issues a body gets, as `path: message`, so each test sees there is one per field. */
function issues(schema: () => z.ZodType, body: unknown): string[] {
  const result = schema().safeParse(body);
  return result.success ? [] : result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
}

const fromJson = (text: string): unknown => JSON.parse(text);

const CONTROL = 'must not contain control characters';
const BIDI = 'must not contain bidirectional control characters (U+202A–U+202E, U+2066–U+2069)';
const SURROGATE = 'must be valid Unicode: it holds a lone surrogate';
const INVISIBLE = 'must contain a visible character (a letter, digit, punctuation mark or symbol)';

/** What the attack pass sent, and what each must be refused with. */
const hostile: Array<[string, string, string]> = [
  ['NUL', 'Pro\u0000', CONTROL],
  ['an ANSI escape', '\u001b[31mPro\u001b[0m', CONTROL],
  ['DEL', 'Pro\u007f', CONTROL],
  ['a C1 control (U+0085)', 'Pro\u0085', CONTROL],
  ['a C1 control (U+009B, CSI)', '\u009b31mPro', CONTROL],
  ['a line feed inside', 'Pro\nPlan', CONTROL],
  ['a tab inside', 'Pro\tPlan', CONTROL],
  ['a right-to-left override', 'Pro\u202Egnp.exe', BIDI],
  ['a left-to-right embedding', '\u202APro', BIDI],
  ['a pop directional formatting', 'Pro\u202C', BIDI],
  ['a first strong isolate', '\u2068Pro\u2069', BIDI],
  ['a lone high surrogate', '\ud800', SURROGATE],
  ['a lone low surrogate after text', 'Pro\udc00', SURROGATE],
  ['a zero-width space alone', '\u200B', INVISIBLE],
  ['zero-width joiners and non-joiners alone', '\u200C\u200D\u2060', INVISIBLE],
  ['a combining mark alone', '\u0301', INVISIBLE],
  ['a variation selector alone', '\uFE0F', INVISIBLE],
  ['a soft hyphen alone', '\u00AD', INVISIBLE],
  ['a Hangul filler (a letter that is default-ignorable)', '\u3164', INVISIBLE],
];

/** Every single-line text of the API bodies, as a body that holds only that text. */
const singleLine: Array<[string, () => z.ZodType, (value: string) => unknown, string]> = [
  ['project name (create)', CreateProjectBody, (name) => ({ name }), 'name'],
  ['project name (update)', UpdateProjectBody, (name) => ({ name }), 'name'],
  ['feature name (create)', CreateFeatureBody, (name) => ({ name, basePrice: 1 }), 'name'],
  ['feature name (update)', UpdateFeatureBody, (name) => ({ name }), 'name'],
  ['feature condition', UpdateFeatureBody, (condition) => ({ condition }), 'condition'],
  ['plan name (create)', CreatePlanBody, (name) => ({ name }), 'name'],
  ['plan name (update)', UpdatePlanBody, (name) => ({ name }), 'name'],
  ['plan name (duplicate)', DuplicatePlanBody, (name) => ({ name }), 'name'],
  ['theme fontFamily', ThemePatch, (fontFamily) => ({ fontFamily }), 'fontFamily'],
  ['API key name (CLI)', NewKeyInput, (name) => ({ ownerId: 'o-1', permission: 'read', name }), 'name'],
];

describe.each(singleLine)('%s: the text rule', (_label, schema, body, field) => {
  test.each(hostile)('refuses %s with one message naming the field', (_what, value, message) => {
    expect(issues(schema, body(value))).toEqual([`${field}: ${message}`]);
  });

  test('whitespace alone is empty once trimmed', () => {
    expect(issues(schema, body(' \u00a0\u3000\ufeff '))).toEqual([`${field}: must not be empty`]);
  });

  test('stores NFC: "e" + U+0301 becomes "é" (U+00E9)', () => {
    const parsed = schema().parse(body('Caf\u0065\u0301')) as Record<string, string>;
    expect(parsed[field]).toBe('Caf\u00e9');
    expect(parsed[field]?.length).toBe(4);
  });

  test.each(['Ünïcode ✓ 😀', 'محصول', '製品', 'a\u200Db', '👩\u200D💻', 'Pro\u200E', '$', '1'])(
    'accepts %j',
    (value) => {
      expect(issues(schema, body(value))).toEqual([]);
    },
  );
});

describe('length is counted on the NFC form, in code points', () => {
  test('100 decomposed "é" (200 code points as sent) are 100 once composed: accepted', () => {
    const parsed = CreateProjectBody().parse({ name: 'e\u0301'.repeat(100) });
    expect(parsed.name).toBe('\u00e9'.repeat(100));
  });
  test('60 × U+0958 (60 code points as sent) are 120 in NFC, which decomposes them: refused', () => {
    expect('\u0958'.repeat(60).normalize('NFC')).toHaveLength(120);
    expect(issues(CreateProjectBody, { name: '\u0958'.repeat(60) })).toEqual(['name: must be at most 100 characters']);
  });
  test('an astral character (two UTF-16 code units) counts 1', () => {
    expect(issues(CreateProjectBody, { name: '😀'.repeat(100) })).toEqual([]);
    expect(issues(CreateProjectBody, { name: `${'😀'.repeat(100)}a` })).toEqual([
      'name: must be at most 100 characters',
    ]);
  });
  test('one message when a value is both too long and holds a control character', () => {
    expect(issues(CreateProjectBody, { name: `\u0000${'a'.repeat(200)}` })).toEqual([
      'name: must be at most 100 characters',
    ]);
  });
});

describe('fontFamily keeps its CSS rule on top of the text rule', () => {
  test.each(['Inter; color: red', 'a{', '</style>', 'x\\'])('%j is refused as a font list', (fontFamily) => {
    expect(issues(ThemePatch, { fontFamily })).toEqual(['fontFamily: must be a font list without ; { } < > or \\']);
  });
  test('a zero-width space next to a semicolon names the CSS rule', () => {
    expect(issues(ThemePatch, { fontFamily: '\u200B;' })).toEqual([
      'fontFamily: must be a font list without ; { } < > or \\',
    ]);
  });
});

/** Every multi-line text of the API bodies. */
const multiLine: Array<[string, () => z.ZodType, string]> = [
  ['project description', UpdateProjectBody, 'description'],
  ['project pricingPageDescription', UpdateProjectBody, 'pricingPageDescription'],
  ['feature description', UpdateFeatureBody, 'description'],
  ['plan description', UpdatePlanBody, 'description'],
];

describe.each(multiLine)('%s: the multi-line text rule', (_label, schema, field) => {
  const body = (value: string) => ({ [field]: value });

  test.each([
    ['NUL', 'a\u0000b', CONTROL],
    ['an ANSI escape', '\u001b[2J', CONTROL],
    ['a vertical tab', 'a\u000bb', CONTROL],
    ['a form feed', 'a\u000cb', CONTROL],
    ['DEL', 'a\u007f', CONTROL],
    ['a C1 control', 'a\u0085b', CONTROL],
    ['a right-to-left override', 'a\u202Eb', BIDI],
    ['a right-to-left isolate', '\u2067a', BIDI],
    ['a lone surrogate', 'a\ud800', SURROGATE],
  ])('refuses %s', (_what, value, message) => {
    expect(issues(schema, body(value))).toEqual([`${field}: ${message}`]);
  });

  test('keeps line breaks and tabs, leading and trailing spaces, and may be empty or blank', () => {
    for (const value of ['First line\nsecond\r\nthird\twith a tab', '  indented  ', '', '\u200B', 'a\u200Fb']) {
      expect((schema().parse(body(value)) as Record<string, string>)[field]).toBe(value);
    }
  });

  test('stores NFC', () => {
    expect((schema().parse(body('Cre\u0300me\n')) as Record<string, string>)[field]).toBe('Cr\u00e8me\n');
  });
});

describe('URLs refuse what the text rule refuses, and are kept as sent', () => {
  test.each([
    ['NUL', 'https://a.example/ok\u0000', CONTROL],
    ['an escape', 'https://a.example/\u001b[31m', CONTROL],
    ['a right-to-left override', 'https://a.example/\u202Egnp.exe', BIDI],
    ['a lone surrogate', 'https://a.example/\ud800', SURROGATE],
  ])('refuses %s', (_what, value, message) => {
    expect(issues(httpUrl, value)).toEqual([`: ${message}`]);
  });
  test('a decomposed path is not recomposed (NFC could change where it leads)', () => {
    expect(httpUrl().parse('https://a.example/cafe\u0301')).toBe('https://a.example/cafe\u0301');
  });
});

describe('ids stay exact: past 2^53 − 1 they are refused, with one message', () => {
  const largest = Number.MAX_SAFE_INTEGER;
  const TOO_LARGE = `must be at most ${largest}`;

  test('in a body', () => {
    expect(positiveId().parse(largest)).toBe(largest);
    // Written as JSON text, as a body sends them: 9007199254740993 arrives as 9007199254740992.
    for (const big of ['9007199254740992', '9007199254740993', '9999999999999999', '1e300'].map(fromJson)) {
      expect(issues(positiveId, big)).toEqual([`: ${TOO_LARGE}`]);
    }
    for (const bad of [0, -1, 1.5, Number.NaN]) {
      expect(issues(positiveId, bad)).toEqual([': must be a positive whole number']);
    }
  });

  test('in a plan body, one message naming the field', () => {
    expect(issues(CreatePlanBody, fromJson('{"name":"P","features":[{"featureId":9007199254740993}]}'))).toEqual([
      `features.0.featureId: ${TOO_LARGE}`,
    ]);
    expect(issues(AddPlanFeaturesBody, fromJson('{"featureId":9999999999999999}'))).toEqual([
      `featureId: ${TOO_LARGE}`,
    ]);
  });

  test('in a query string: "9999999999999999" no longer reads as 10000000000000000', () => {
    expect(positiveIdString().parse(String(largest))).toBe(largest);
    for (const big of ['9007199254740992', '9007199254740993', '9999999999999999']) {
      expect(issues(positiveIdString, big)).toEqual([`: ${TOO_LARGE}`]);
    }
    expect(issues(positiveIdString, '99999999999999999')).toEqual([': must be a positive whole number']);
  });
});
