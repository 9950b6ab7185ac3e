/**
 * A custom plan's chosen features travel in Stripe metadata, which allows at most 50 keys
 * of at most 500 characters each. Each of `featureDetails_0`, `featureDetails_1`, … is a
 * complete JSON array of whole entries, so every value reads on its own (in Stripe's
 * dashboard too); a reader concatenates the arrays in index order.
 */

export const METADATA_KEYS_MAX = 50;
export const METADATA_VALUE_MAX = 500;
export const FEATURE_DETAILS_PREFIX = 'featureDetails_';

export interface FeatureDetail {
  id: number;
  name: string;
  /** Units chosen for a countable feature; null for the others. */
  quantity: number | null;
  /** What the feature adds per billing interval, in major units. */
  price: number;
}

/**
 * The metadata entries for a list of details, or undefined when they need more than
 * `availableKeys` keys. Entries are packed in order, as many whole entries per value as fit
 * in 500 characters (filling each value before opening the next is the fewest values any
 * order-keeping split can use).
 *
 * No entry is ever too long for a value on its own: a name is at most 100 characters and the
 * text rule refuses Cc and Cs, so JSON escapes at most `"` and `\` (2 characters each), and
 * the entry is at most 200 for the name plus `{"id":,"name":"","quantity":,"price":}` (38),
 * an id (≤ 16 digits), a quantity (≤ 24 characters as JSON writes a number) and a price
 * (≤ 21): at most 299 characters, 301 in an array of its own. An entry that still escapes
 * longer (`\u0000` is 6 characters) makes the list refused as not fitting, never cut.
 */
export function featureDetailsMetadata(
  details: FeatureDetail[],
  availableKeys: number,
): Record<string, string> | undefined {
  const values: string[] = [];
  let open: string[] = [];
  let openLength = 2; // the brackets
  for (const detail of details) {
    const entry = JSON.stringify(detail);
    if (entry.length + 2 > METADATA_VALUE_MAX) return undefined;
    const added = entry.length + (open.length > 0 ? 1 : 0);
    if (openLength + added > METADATA_VALUE_MAX) {
      values.push(`[${open.join(',')}]`);
      open = [];
      openLength = 2;
    }
    openLength += entry.length + (open.length > 0 ? 1 : 0);
    open.push(entry);
  }
  if (open.length > 0 || values.length === 0) values.push(`[${open.join(',')}]`);
  if (values.length > availableKeys) return undefined;
  return Object.fromEntries(values.map((value, index) => [`${FEATURE_DETAILS_PREFIX}${index}`, value]));
}

const detailKey = new RegExp(`^${FEATURE_DETAILS_PREFIX}(0|[1-9][0-9]*)$`);

function parseArray(text: string): unknown[] | undefined {
  try {
    const parsed: unknown = JSON.parse(text);
    return Array.isArray(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/**
 * `featureDetails_0…n` in numeric order, their arrays concatenated into the list of details;
 * undefined when absent, or when a value is not an array.
 */
export function readFeatureDetails(metadata: Record<string, string>): FeatureDetail[] | undefined {
  const values = Object.entries(metadata)
    .map(([key, value]) => ({ index: Number(detailKey.exec(key)?.[1] ?? Number.NaN), value }))
    .filter(({ index }) => Number.isInteger(index))
    .sort((a, b) => a.index - b.index)
    .map(({ value }) => value);
  if (values.length === 0) return undefined;
  const arrays = values.map(parseArray);
  return arrays.every((array) => array !== undefined) ? (arrays.flat() as FeatureDetail[]) : undefined;
}

export const hasFeatureDetails = (metadata: Record<string, string>) =>
  Object.keys(metadata).some((key) => key.startsWith(FEATURE_DETAILS_PREFIX));
