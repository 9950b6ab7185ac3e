import { describe, expect, test } from 'vitest';
import { variantFor } from '#domain/experiments/assignment.ts';
import { probabilityBest, wilsonInterval } from '#domain/experiments/stats.ts';

/** ln Γ(x) by Lanczos (g = 7, n = 9), for the closed form below. */
function logGamma(x: number): number {
  const c = [
    0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059,
    12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
  ];
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - logGamma(1 - x);
  const y = x - 1;
  let a = c[0] as number;
  const t = y + 7.5;
  for (let i = 1; i < 9; i++) a += (c[i] as number) / (y + i);
  return 0.5 * Math.log(2 * Math.PI) + (y + 0.5) * Math.log(t) - t + Math.log(a);
}
const logBeta = (a: number, b: number) => logGamma(a) + logGamma(b) - logGamma(a + b);

/** P(pB > pA) for Beta posteriors, exactly (Evan Miller's sum, for an integer αB). */
function probabilityBBeatsA(aA: number, bA: number, aB: number, bB: number): number {
  let total = 0;
  for (let i = 0; i < aB; i++) {
    total += Math.exp(logBeta(aA + i, bA + bB) - Math.log(bB + i) - logBeta(1 + i, bB) - logBeta(aA, bA));
  }
  return total;
}

describe('experiment statistics', () => {
  test('Wilson: [0, 0] without trials, inside [0, 1], and known values', () => {
    expect(wilsonInterval(0, 0)).toEqual([0, 0]);
    const [low, high] = wilsonInterval(0, 10);
    expect(low).toBeCloseTo(0, 12);
    expect(high).toBeCloseTo(0.27753, 4);
    const [l2, h2] = wilsonInterval(50, 100);
    expect(l2).toBeCloseTo(0.40383, 4);
    expect(h2).toBeCloseTo(0.59617, 4);
    expect(wilsonInterval(10, 10)[1]).toBeCloseTo(1, 12);
  });

  test.each([
    [10, 100, 15, 100],
    [3, 40, 3, 40],
    [120, 1000, 90, 1000],
    [0, 0, 2, 5],
  ])('probability best matches the closed form within 0.01: %i/%i vs %i/%i', (sA, nA, sB, nB) => {
    const [pA, pB] = probabilityBest([
      { successes: sA, trials: nA },
      { successes: sB, trials: nB },
    ]);
    const exact = probabilityBBeatsA(1 + sA, 1 + nA - sA, 1 + sB, 1 + nB - sB);
    expect(pB).toBeCloseTo(exact, 1.7);
    expect((pA as number) + (pB as number)).toBeCloseTo(1, 12);
  });

  test('probability best is reproducible, and sums to 1 over four variants', () => {
    const arms = [
      { successes: 5, trials: 50 },
      { successes: 7, trials: 50 },
      { successes: 6, trials: 50 },
      { successes: 9, trials: 50 },
    ];
    const first = probabilityBest(arms);
    expect(probabilityBest(arms)).toEqual(first);
    expect(first.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12);
  });

  test('assignment is by the weights and the same for a visitor every time', () => {
    const experiment = {
      experimentId: 7,
      variants: [
        { key: 'a', weight: 1, plans: [] },
        { key: 'b', weight: 2, plans: [] },
        { key: 'c', weight: 1, plans: [] },
      ],
    };
    const counts: Record<string, number> = { a: 0, b: 0, c: 0 };
    for (let i = 0; i < 20_000; i++) {
      const { key } = variantFor(experiment, `visitor-${i}`);
      counts[key] = (counts[key] ?? 0) + 1;
    }
    // Binomial sd at n = 20,000: 61 for p = 0.25, 71 for p = 0.5; 5 sd either side.
    expect(Math.abs((counts.a as number) - 5_000)).toBeLessThan(310);
    expect(Math.abs((counts.b as number) - 10_000)).toBeLessThan(360);
    expect(variantFor(experiment, 'visitor-1').key).toBe(variantFor(experiment, 'visitor-1').key);
  });
});
