import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  FEATURE_DETAILS_PREFIX,
  type FeatureDetail,
  featureDetailsMetadata,
  hasFeatureDetails,
  METADATA_KEYS_MAX,
  METADATA_VALUE_MAX,
  readFeatureDetails,
} from '#domain/payments/feature-details.ts';

/** Keys left for the details once `projectId` is in the metadata. */
const KEYS = METADATA_KEYS_MAX - 1;

const detail = (id: number, name = `Feature ${id}`): FeatureDetail => ({
  id,
  name,
  quantity: id % 2 ? 100 : null,
  price: id * 1.5,
});

/** The values in key order, each checked to be a complete JSON array of at most 500 characters. */
function valuesOf(entries: Record<string, string> | undefined): FeatureDetail[][] {
  if (!entries) throw new Error('the details did not fit');
  const keys = Object.keys(entries);
  expect(keys).toEqual(keys.map((_, i) => `${FEATURE_DETAILS_PREFIX}${i}`));
  return keys.map((key) => {
    const value = entries[key] as string;
    expect(value.length).toBeLessThanOrEqual(METADATA_VALUE_MAX);
    // Valid UTF-16 (no half of a surrogate pair), so it survives UTF-8 as Stripe stores it.
    expect(Buffer.from(value, 'utf8').toString('utf8')).toBe(value);
    const parsed: unknown = JSON.parse(value);
    expect(Array.isArray(parsed)).toBe(true);
    return parsed as FeatureDetail[];
  });
}

describe('featureDetails metadata: each value a complete JSON array', () => {
  it('fits a short list in one value', () => {
    const entries = featureDetailsMetadata([detail(1), detail(2)], KEYS);
    expect(entries).toEqual({ [`${FEATURE_DETAILS_PREFIX}0`]: JSON.stringify([detail(1), detail(2)]) });
    expect(readFeatureDetails(entries ?? {})).toEqual([detail(1), detail(2)]);
  });

  it('packs whole entries, in order, each value parsing on its own', () => {
    const details = Array.from({ length: 60 }, (_, i) => detail(i + 1, `Feature ${'x'.repeat(40)} ${i + 1}`));
    const entries = featureDetailsMetadata(details, KEYS);
    const values = valuesOf(entries);
    expect(values.length).toBeGreaterThan(5);
    expect(values.flat()).toEqual(details);
    // Joined in numeric order, not string order (featureDetails_10 sorts before _2 as text).
    const shuffled = Object.fromEntries(Object.entries(entries ?? {}).reverse());
    expect(readFeatureDetails(shuffled)).toEqual(details);
  });

  it('fills each value before opening the next: the fewest values an order-keeping split can use', () => {
    const details = Array.from({ length: 90 }, (_, i) => detail(i + 1, 'n'.repeat(1 + ((i * 37) % 100))));
    const values = valuesOf(featureDetailsMetadata(details, KEYS));
    for (let i = 0; i + 1 < values.length; i++) {
      const next = JSON.stringify((values[i + 1] as FeatureDetail[])[0]);
      expect(JSON.stringify(values[i]).length + 1 + next.length).toBeGreaterThan(METADATA_VALUE_MAX);
    }
  });

  it('keeps surrogate pairs and emoji whole, in names of every length', () => {
    const names = [
      '🚀'.repeat(50),
      '👩‍👩‍👧‍👦 family',
      '🇯🇵🇫🇷',
      'a😀b'.repeat(25),
      '𝔘𝔫𝔦𝔠𝔬𝔡𝔢',
      `${'x'.repeat(99)}😀`.slice(0, 100),
    ];
    const details = Array.from({ length: 40 }, (_, i) => detail(i + 1, names[i % names.length]));
    const values = valuesOf(featureDetailsMetadata(details, KEYS));
    expect(values.flat()).toEqual(details);
    for (const value of values.flat()) expect(names).toContain(value.name);
  });

  it('holds 147 features of 100-character names in the 49 keys left by projectId; the 148th does not fit', () => {
    // Three entries of ≤ 165 characters per value: a 100-character name leaves 27 for the id, quantity and price.
    const details = Array.from({ length: 148 }, (_, i) => ({
      id: 1_000_000 + i,
      name: String(i).padStart(100, 'n'),
      quantity: null,
      price: 19.99,
    }));
    expect(JSON.stringify(details[0]).length).toBe(154);
    const fits = featureDetailsMetadata(details.slice(0, 147), KEYS);
    expect(Object.keys(fits ?? {})).toHaveLength(49);
    expect(valuesOf(fits).flat()).toEqual(details.slice(0, 147));
    expect(featureDetailsMetadata(details, KEYS)).toBeUndefined();
    expect(featureDetailsMetadata([detail(1)], 0)).toBeUndefined();
  });

  it('never needs to cut an entry: within the limits one entry is at most 299 characters', () => {
    // Names (≤ 100, no Cc or Cs) escape at most to 200; ids, quantities and prices at their longest JSON.
    const escaped = fc.constantFrom('"', '\\', 'a', '😀', 'é', '\u2028', '\u00ad');
    const name = fc.array(escaped, { minLength: 1, maxLength: 100 }).map((chars) => chars.join('').slice(0, 100));
    const number = fc.oneof(
      fc.double({ min: 1e-9, max: 1e12, noNaN: true }),
      fc.constantFrom(0, (1 / 3) * 1e-5, (1 / 3) * 1e-6, 1e12 - 1 / 3),
    );
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
        name,
        fc.option(number),
        number,
        (id, text, quantity, price) => {
          const entry: FeatureDetail = { id, name: text, quantity, price: Number(price.toPrecision(12)) };
          expect(JSON.stringify(entry).length).toBeLessThanOrEqual(299);
          expect(valuesOf(featureDetailsMetadata([entry, entry], KEYS)).flat()).toEqual([entry, entry]);
        },
      ),
    );
    const worst: FeatureDetail = {
      id: Number.MAX_SAFE_INTEGER,
      name: '"'.repeat(100),
      quantity: (1 / 3) * 1e-5,
      price: 1.23456789012e-7,
    };
    expect(JSON.stringify(worst).length).toBeLessThanOrEqual(299);
  });

  it('refuses, rather than cuts, an entry longer than a value', () => {
    const long = detail(1, '\u0000'.repeat(100));
    expect(JSON.stringify(long).length).toBeGreaterThan(METADATA_VALUE_MAX);
    expect(featureDetailsMetadata([long], KEYS)).toBeUndefined();
  });

  it('round-trips any list of names', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ id: fc.nat(), name: fc.string({ maxLength: 100, unit: 'grapheme' }) }), { maxLength: 60 }),
        (items) => {
          const details = items.map(({ id, name }) => ({ id, name, quantity: null, price: 1 }));
          const entries = featureDetailsMetadata(details, KEYS);
          if (!entries) return;
          expect(valuesOf(entries).flat()).toEqual(details);
          expect(readFeatureDetails(entries)).toEqual(details);
        },
      ),
    );
  });
});

describe('readFeatureDetails', () => {
  it('reads the values in numeric key order, whatever order the keys come in', () => {
    const details = Array.from({ length: 80 }, (_, i) => detail(i + 1, `Fëature ${'😀'.repeat(20)} ${i + 1}`));
    const entries = featureDetailsMetadata(details, KEYS) ?? {};
    expect(Object.keys(entries).length).toBeGreaterThan(10);
    expect(readFeatureDetails(Object.fromEntries(Object.entries(entries).reverse()))).toEqual(details);
  });

  it('leaves other keys alone, and is undefined when the details are absent or unreadable', () => {
    const entries = featureDetailsMetadata([detail(1)], KEYS) ?? {};
    expect(readFeatureDetails({ projectId: '7', planId: '3', ...entries, featureDetailsX: '[1]' })).toEqual([
      detail(1),
    ]);
    expect(readFeatureDetails({ projectId: '7', planId: '3' })).toBeUndefined();
    expect(readFeatureDetails({ [`${FEATURE_DETAILS_PREFIX}0`]: '{"id":1}' })).toBeUndefined();
    expect(
      readFeatureDetails({ [`${FEATURE_DETAILS_PREFIX}0`]: '[{"id":1}', [`${FEATURE_DETAILS_PREFIX}1`]: '[' }),
    ).toBe(undefined);
    expect(hasFeatureDetails(entries)).toBe(true);
    expect(hasFeatureDetails({ planId: '3' })).toBe(false);
  });
});
