import { limits } from '#contract/limits.ts';
import { admitCall, type WindowLimit } from '#db/rate-limits.ts';
import { RateLimitedError } from '../errors.ts';
import type { Clock } from '../ports.ts';

const windowSeconds = limits.publicPaymentWindowSeconds;
const perClient: WindowLimit = { limit: limits.publicPaymentCallsPerClient, windowSeconds };
const perProject: WindowLimit = { limit: limits.publicPaymentCallsPerProject, windowSeconds };

/** The project's window: every client's calls. */
const PROJECT_SCOPE = 'project';
/** Client addresses come from the network (shared/http/client-address.ts); the prefix keeps them apart from 'project'. */
const clientScope = (address: string) => `client#${address.toLowerCase()}`;

/**
 * Counts one public payment call (a checkout or a receipt that is about to call Stripe),
 * across every function instance: first in the window of the client's address on this
 * project, then in the project's own. A client past its limit is refused before the
 * project's window counts it, so no single client can use up the project's calls; the
 * project's ceiling bounds what many clients together send to its Stripe account. Past
 * either, a 429 whose Retry-After is when that window next has room. Called after the
 * request is known to be valid and before the project's key is opened: a bad request costs
 * nothing of either window, and a refused one never reaches Stripe.
 */
export async function countPublicPaymentCall(clock: Clock, projectId: number, clientAddress: string): Promise<void> {
  const now = clock.now();
  const windows = [
    {
      scope: clientScope(clientAddress),
      spec: perClient,
      who: 'Your address has made',
      limit: 'the limit per visitor',
    },
    { scope: PROJECT_SCOPE, spec: perProject, who: 'This pricing page has taken', limit: 'its limit' },
  ];
  for (const { scope, spec, who, limit } of windows) {
    const admission = await admitCall({ projectId, scope }, () => clock.now(), spec);
    if (admission === 'admitted') continue;
    const seconds = Math.max(1, Math.ceil((admission.retryAtMs - now) / 1000));
    throw new RateLimitedError(
      `${who} ${spec.limit} payment calls in the last ${spec.windowSeconds} seconds, ${limit}; try again in ${seconds} s.`,
      seconds,
    );
  }
}
