import { limits } from '#contract/limits.ts';
import { admitCall } from '#db/rate-limits.ts';
import { RateLimitedError } from '../errors.ts';
import type { Clock } from '../ports.ts';

const callWindow = { limit: limits.publicPaymentCalls, windowSeconds: limits.publicPaymentWindowSeconds };

/**
 * Counts one public payment call (a checkout or a receipt that is about to call Stripe)
 * against the project's limit, across every function instance; past it, a 429 whose
 * Retry-After is when the callWindow next has room. Called after the request is known to be
 * valid and before the project's key is opened: a bad request costs the visitor nothing of
 * the budget, and a refused one never reaches Stripe.
 */
export async function countPublicPaymentCall(clock: Clock, projectId: number): Promise<void> {
  const now = clock.now();
  const admission = await admitCall(projectId, () => clock.now(), callWindow);
  if (admission === 'admitted') return;
  const seconds = Math.ceil((admission.retryAtMs - now) / 1000);
  throw new RateLimitedError(
    `This pricing page has taken ${callWindow.limit} payment calls in the last ${callWindow.windowSeconds} seconds, its limit; try again in ${Math.max(1, seconds)} s.`,
    seconds,
  );
}
