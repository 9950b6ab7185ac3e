import { LOWER_ALNUM, randomToken } from '../random.ts';

/**
 * Event ids rise with time (milliseconds in fixed-width base 36, then 16 random characters),
 * so an endpoint's deliveries, keyed by event id, read newest first in one Query. A
 * delivery's id is its event's with `dlv_` in place of `evt_`: unique per endpoint, which the
 * path names too.
 */
export const newEventId = (now = Date.now()) =>
  `evt_${now.toString(36).padStart(9, '0')}${randomToken(16, LOWER_ALNUM)}`;

export const deliveryIdOf = (eventId: string) => `dlv_${eventId.slice(4)}`;

/** The event id a delivery id names, or undefined for one this API never gave. */
export const eventIdOf = (deliveryId: string) =>
  /^dlv_[0-9a-z]{25}$/.test(deliveryId) ? `evt_${deliveryId.slice(4)}` : undefined;
