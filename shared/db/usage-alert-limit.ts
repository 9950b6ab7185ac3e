// Writes of one aggregate decide its thresholds on one limit at a time: the rule every write of
// an aggregate with alerts (a batch of /events, a consume) puts in its condition.

/** The limit a write decided its thresholds on, and one stored it may replace. */
export interface LimitPin {
  /** The limit decided on (0: none); undefined when the write decides no thresholds. */
  decidedLimit?: number | undefined;
  /**
   * A limit the aggregate held when the writer read the customer it decided on, or since: that
   * read supersedes it, so the write may replace it.
   */
  replaces?: number | undefined;
}

/**
 * The condition that the aggregate holds no limit yet, the decided one or the one the write
 * replaces; undefined when the write decides no thresholds. A write whose condition fails on
 * another limit learns it (ALL_OLD) and decides again on a customer read since.
 */
export function sameLimitCondition<A>(
  pin: LimitPin,
  attribute: A,
  ops: { notExists(attribute: A): string; eq(attribute: A, limit: number): string },
): string | undefined {
  const { decidedLimit, replaces } = pin;
  if (decidedLimit === undefined) return undefined;
  const accepted = replaces === undefined || replaces === decidedLimit ? [decidedLimit] : [decidedLimit, replaces];
  return [ops.notExists(attribute), ...accepted.map((limit) => ops.eq(attribute, limit))].join(' OR ');
}
