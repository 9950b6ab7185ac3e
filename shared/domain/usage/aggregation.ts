import type { AggregationRules } from '#db/usage.ts';

/**
 * A sum is kept to this many decimal places: DynamoDB adds exactly but refuses a result of
 * more than 38 significant digits (1e15 + 1.23456789012345e-9 would be 39), and a sum of
 * doubles carries binary noise (0.1 + 0.2). Values below 1e-9 are refused anyway.
 */
const SUM_DECIMALS = 9;

/** What the events of one feature's month make of its aggregate, by its aggregation method. */
export const aggregationRules: AggregationRules = {
  added: (method, events) =>
    method === 'count' ? events.length : roundedSum(events.reduce((total, e) => total + (e.value ?? 0), 0)),
  max: (events) => Math.max(...events.map((e) => e.value ?? Number.NEGATIVE_INFINITY)),
  // The greatest timestamp wins; on a tie, the later received.
  latest: (events) => events.reduce((last, event) => (event.at >= last.at ? event : last)),
};

/** A sum as the aggregate keeps it. */
export const roundedSum = (sum: number) => Number(sum.toFixed(SUM_DECIMALS));
