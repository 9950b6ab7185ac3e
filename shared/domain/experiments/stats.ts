/**
 * The statistics of an experiment's results, without I/O: a 95% Wilson score interval for
 * each variant's conversion, and the posterior probability that each variant converts best.
 */

/** The 97.5th percentile of the standard normal: a two-sided 95% interval. */
const Z95 = 1.959963984540054;

/**
 * The Wilson score interval of `successes` out of `trials` (Wilson 1927): unlike the normal
 * approximation it stays inside [0, 1] and behaves at 0 and at small counts. [0, 0] for no trials.
 */
export function wilsonInterval(successes: number, trials: number, z = Z95): [number, number] {
  if (trials <= 0) return [0, 0];
  const k = Math.min(successes, trials);
  const p = k / trials;
  const z2 = z * z;
  const denominator = 1 + z2 / trials;
  const centre = (p + z2 / (2 * trials)) / denominator;
  const half = (z / denominator) * Math.sqrt((p * (1 - p)) / trials + z2 / (4 * trials * trials));
  return [Math.max(0, centre - half), Math.min(1, centre + half)];
}

/** mulberry32: a small seeded generator, so the same counts always give the same probabilities. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function normal(random: () => number): number {
  const u = 1 - random();
  const v = random();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

/** Gamma(shape, 1) by Marsaglia and Tsang (2000); shape ≥ 1 here (Beta(1,1) priors). */
function gamma(shape: number, random: () => number): number {
  const d = shape - 1 / 3;
  const c = 1 / Math.sqrt(9 * d);
  for (;;) {
    let x: number;
    let v: number;
    do {
      x = normal(random);
      v = 1 + c * x;
    } while (v <= 0);
    v = v * v * v;
    const u = random();
    if (u < 1 - 0.0331 * x ** 4 || Math.log(u) < 0.5 * x * x + d * (1 - v + Math.log(v))) return d * v;
  }
}

function beta(a: number, b: number, random: () => number): number {
  const x = gamma(a, random);
  return x / (x + gamma(b, random));
}

export const PROBABILITY_DRAWS = 20_000;
const SEED = 0x5eed;

/**
 * P(variant i has the highest conversion rate), each rate Beta(1 + successes, 1 + failures)
 * a posteriori from a uniform Beta(1,1) prior: estimated from PROBABILITY_DRAWS joint draws of
 * a generator with a fixed seed, so a result is reproducible (±0.01 of the exact value at
 * worst, with 99% confidence). Ties in a draw go to the earlier variant.
 */
export function probabilityBest(arms: { successes: number; trials: number }[]): number[] {
  const random = seeded(SEED);
  const wins = arms.map(() => 0);
  const shapes = arms.map(({ successes, trials }) => {
    const k = Math.min(successes, Math.max(trials, 0));
    return [1 + k, 1 + Math.max(0, trials - k)] as const;
  });
  for (let draw = 0; draw < PROBABILITY_DRAWS; draw++) {
    let best = 0;
    let bestValue = -1;
    shapes.forEach(([a, b], i) => {
      const value = beta(a, b, random);
      if (value > bestValue) {
        bestValue = value;
        best = i;
      }
    });
    wins[best] = (wins[best] as number) + 1;
  }
  return wins.map((w) => w / PROBABILITY_DRAWS);
}
