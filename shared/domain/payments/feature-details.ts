/**
 * A custom plan's chosen features travel in Stripe metadata, which allows at most 50 keys
 * of at most 500 characters each. The list is serialised once as a JSON array and cut into
 * `featureDetails_0`, `featureDetails_1`, …; a reader joins the values in index order and
 * parses the result back into the full list.
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
 * Cuts at most `max` UTF-16 units, never inside a surrogate pair (an emoji in a name would
 * become two invalid halves) and never next to whitespace, which a store could trim.
 */
function cutPoint(text: string, start: number, max: number): number {
  const end = Math.min(text.length, start + max);
  if (end === text.length) return end;
  let cut = end;
  const unsafe = (i: number) => /\s/.test(text[i - 1] ?? '') || /\s/.test(text[i] ?? '') || isLowSurrogate(text, i);
  while (cut > start + 1 && unsafe(cut)) cut--;
  // A value made only of whitespace cannot be cut safely; fall back to the surrogate rule alone.
  if (cut === start + 1 && unsafe(cut)) {
    cut = end;
    while (cut > start + 1 && isLowSurrogate(text, cut)) cut--;
  }
  return cut;
}

const isLowSurrogate = (text: string, i: number) => {
  const code = text.charCodeAt(i);
  return code >= 0xdc00 && code <= 0xdfff;
};

/**
 * The metadata entries for a list of details, or undefined when they need more than
 * `availableKeys` keys.
 */
export function featureDetailsMetadata(
  details: FeatureDetail[],
  availableKeys: number,
): Record<string, string> | undefined {
  const json = JSON.stringify(details);
  const entries: Record<string, string> = {};
  let index = 0;
  for (let start = 0; start < json.length; index++) {
    if (index >= availableKeys) return undefined;
    const end = cutPoint(json, start, METADATA_VALUE_MAX);
    entries[`${FEATURE_DETAILS_PREFIX}${index}`] = json.slice(start, end);
    start = end;
  }
  return entries;
}

/** Joins `featureDetails_0…n` in numeric order and parses them; undefined when absent or unreadable. */
export function readFeatureDetails(metadata: Record<string, string>): FeatureDetail[] | undefined {
  const parts = Object.entries(metadata)
    .filter(([key]) => new RegExp(`^${FEATURE_DETAILS_PREFIX}\\d+$`).test(key))
    .map(([key, value]) => ({ index: Number(key.slice(FEATURE_DETAILS_PREFIX.length)), value }))
    .sort((a, b) => a.index - b.index);
  if (parts.length === 0) return undefined;
  try {
    const parsed: unknown = JSON.parse(parts.map((p) => p.value).join(''));
    return Array.isArray(parsed) ? (parsed as FeatureDetail[]) : undefined;
  } catch {
    return undefined;
  }
}

export const hasFeatureDetails = (metadata: Record<string, string>) =>
  Object.keys(metadata).some((key) => key.startsWith(FEATURE_DETAILS_PREFIX));
