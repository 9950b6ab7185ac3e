/**
 * Apart from the usage schemas: the usage recording code reads these bounds without building
 * those schemas at its cold start (the plans and sweeper functions carry it).
 */

/** The bounds of one batch of usage events. */
export const usageLimits = {
  eventsPerBatch: 1_000,
  eventIdMax: 128,
  propertyMax: 200,
  /** An event's timestamp may be this far in the past… */
  pastDays: 35,
  /** …and this far ahead of the server's clock. */
  aheadMs: 5 * 60_000,
  /**
   * Our own ceiling on |value|: any month of sums stays exact in DynamoDB's 38 digits and
   * far below its largest number; below `smallest`, DynamoDB cannot store a number at all.
   */
  valueMax: 1e15,
  valueSmallest: 1e-9,
  /** The most one consume may take. */
  amountMax: 1e12,
} as const;
