import { limits } from '#contract/limits.ts';
import { type Coding, compress } from '#http/compression.ts';
import { type Row, summarize } from './bench-harness.ts';

/**
 * The CPU of coding the share answer (docs/decisions.md, "Compressed answers"): the bench
 * project's, and one at the limits whose every text is at its cap in random words of random
 * letters (less compressible than any prose; repeated letters would say little of the CPU or
 * the size). Each row times `compress` alone, the step the pipeline adds to an answer.
 */

/** Random lowercase words, `chars` characters long, from a seeded generator (the same text every run). */
function words(chars: number, seed: { n: number }): string {
  const next = () => {
    // xorshift32: exact in 32-bit integers, a period of 2^32 − 1.
    let x = seed.n;
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    seed.n = x >>> 0;
    return seed.n;
  };
  let out = '';
  while (out.length < chars) {
    const length = 2 + (next() % 8);
    for (let i = 0; i < length; i++) out += String.fromCharCode(97 + (next() % 26));
    out += ' ';
  }
  return out.slice(0, chars);
}

/** A share answer of the limits' shape: every plan lists every feature, every text at its cap. */
function shareAtLimits(): string {
  const seed = { n: 42 };
  const features = Array.from({ length: limits.featuresPerProject }, (_, i) => ({
    id: 1_000 + i,
    name: words(limits.nameMax, seed),
    description: words(limits.itemDescriptionMax, seed),
    featureType: 'Usage Based',
    isCountable: true,
    condition: words(limits.conditionMax, seed),
    countableData: { usageCount: 99_999.1234, condition: 'per month', countPrice: 999.12 },
  }));
  const plans = Array.from({ length: limits.plansPerProject }, (_, p) => ({
    id: 1_000 + p,
    name: words(limits.nameMax, seed),
    description: words(limits.itemDescriptionMax, seed),
    basePrice: 99_999.99,
    isFree: false,
    isPopular: p === 0,
    freemiumDay: 30,
    isPerUserPricing: true,
    perUserMultiplier: 1.5,
    features: features.map((feature) => ({
      name: feature.name,
      included: true,
      limit: 99_999.1234,
      featureType: feature.featureType,
      condition: feature.condition,
    })),
  }));
  return JSON.stringify({
    name: words(limits.nameMax, seed),
    description: words(limits.projectDescriptionMax, seed),
    plans,
    features,
  });
}

function timeCoding(label: string, text: string, coding: Coding, iterations: number): Row {
  const body = Buffer.from(text, 'utf8');
  let coded: number | undefined;
  for (let i = 0; i < 2; i++) compress(body, coding);
  const latencies: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const start = performance.now();
    coded = compress(body, coding)?.length;
    latencies.push(performance.now() - start);
  }
  const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
  return summarize(
    `${coding} of ${label}`,
    latencies,
    [0],
    `${kb(body.length)} → ${coded === undefined ? 'identity (coded over the cap)' : kb(coded)}`,
  );
}

/** br and gzip of a share answer at the limits (no database needed). */
export function limitsRows(iterations: number): Row[] {
  const atLimits = shareAtLimits();
  return [
    timeCoding('a share answer at the limits', atLimits, 'br', iterations),
    timeCoding('a share answer at the limits', atLimits, 'gzip', iterations),
  ];
}

/** Rows for the bench table: br and gzip of the bench project's share answer and of one at the limits. */
export function compressionRows(benchShare: string, iterations: number): Row[] {
  return [
    timeCoding('GET /api/share (bench project)', benchShare, 'br', iterations),
    timeCoding('GET /api/share (bench project)', benchShare, 'gzip', iterations),
    ...limitsRows(Math.max(3, Math.min(20, Math.ceil(iterations / 10)))),
  ];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  // `npx tsx scripts/bench-compression.ts`: the limits rows alone.
  for (const row of limitsRows(20)) {
    console.log(`${row.label}: p50 ${row.p50.toFixed(2)} ms, p95 ${row.p95.toFixed(2)} ms, ${row.size}`);
  }
}
