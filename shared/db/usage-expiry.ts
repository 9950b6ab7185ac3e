// How long each usage item lives: the table's TTL attribute (`expiresAt`, epoch seconds).

const DAY_SECONDS = 86_400;
/** An event id seen in the last 35 days is a duplicate. */
const EVENT_ID_KEPT_DAYS = 35;
/** How long an aggregate stays after its month began (a year of history and more). */
const AGGREGATE_KEPT_DAYS = 400;

const monthStart = (month: string) => Date.parse(`${month}-01T00:00:00Z`) / 1000;

function nextMonthStart(month: string): number {
  const [year, m] = month.split('-').map(Number) as [number, number];
  return Date.UTC(year, m, 1) / 1000;
}

/** An aggregate: a year of history and more after its month began. */
export const aggregateExpiry = (month: string) => monthStart(month) + AGGREGATE_KEPT_DAYS * DAY_SECONDS;

/**
 * An event id's dedupe entry: 35 days past its receipt, or past its timestamp when that is
 * ahead of the clock; as long as the event can be accepted again, its id is remembered.
 */
export const eventIdExpiry = (atMs: number, nowSeconds: number) =>
  Math.max(nowSeconds, Math.ceil(atMs / 1000)) + EVENT_ID_KEPT_DAYS * DAY_SECONDS;

/** A unique_count marker: no event can reach its month once 35 days have passed since it ended. */
export const markerExpiry = (month: string) => nextMonthStart(month) + (EVENT_ID_KEPT_DAYS + 1) * DAY_SECONDS;
