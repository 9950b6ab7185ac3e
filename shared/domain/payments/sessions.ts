import { checkoutSessionKnown, recordCheckoutSession } from '#db/checkout-sessions.ts';
import type { Clock } from '../ports.ts';

/**
 * How long a checkout session's receipt stays available: 400 days, a yearly subscription's
 * renewal with a month to spare. Past it the receipt is a 404 (Stripe's dashboard keeps it).
 */
export const RECEIPT_DAYS = 400;

const seconds = (clock: Clock) => Math.floor(clock.now() / 1000);

/** Remembers a session this project's checkout created, so its receipt can be read. */
export async function rememberCheckoutSession(clock: Clock, projectId: number, sessionId: string): Promise<void> {
  const at = new Date(clock.now()).toISOString();
  await recordCheckoutSession(projectId, sessionId, at, seconds(clock) + RECEIPT_DAYS * 86_400);
}

/** Whether this project's checkout created the session (within RECEIPT_DAYS). */
export const isOwnCheckoutSession = (clock: Clock, projectId: number, sessionId: string) =>
  checkoutSessionKnown(projectId, sessionId, seconds(clock));
