/**
 * Optimal string alignment distance (Levenshtein plus adjacent transpositions), compared
 * case-insensitively: "isPoplar" is 1 from "isPopular", "primaryColour" 2 from "primaryColor".
 */
export function editDistance(a: string, b: string): number {
  const s = a.toLowerCase();
  const t = b.toLowerCase();
  const rows: number[][] = Array.from({ length: s.length + 1 }, (_, i) => [i]);
  for (let j = 1; j <= t.length; j++) (rows[0] as number[])[j] = j;
  for (let i = 1; i <= s.length; i++) {
    const row = rows[i] as number[];
    const above = rows[i - 1] as number[];
    for (let j = 1; j <= t.length; j++) {
      const cost = s[i - 1] === t[j - 1] ? 0 : 1;
      let best = Math.min((above[j] as number) + 1, (row[j - 1] as number) + 1, (above[j - 1] as number) + cost);
      if (i > 1 && j > 1 && s[i - 1] === t[j - 2] && s[i - 2] === t[j - 1]) {
        best = Math.min(best, ((rows[i - 2] as number[])[j - 2] as number) + 1);
      }
      row[j] = best;
    }
  }
  return (rows[s.length] as number[])[t.length] as number;
}

/**
 * The known field an unknown one most likely meant: the nearest by edit distance, if it is
 * within a third of the longer name (at least 1, at most 4 edits), ties to the first known.
 * Over that, or for an unknown name that is very long, no suggestion: a guess would mislead.
 */
export function closestField(unknown: string, known: readonly string[]): string | undefined {
  if (unknown.length > 100) return undefined;
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of known) {
    const distance = editDistance(unknown, candidate);
    const allowed = Math.min(4, Math.max(1, Math.floor(Math.max(unknown.length, candidate.length) / 3)));
    if (distance <= allowed && distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}
