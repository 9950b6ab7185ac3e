import { db } from './service.ts';

/**
 * The checkout sessions this service created, per project: a receipt is looked up at Stripe
 * only for one of these, so invented session ids never reach the project's Stripe account.
 */

/** Records (or, for an idempotent replay, refreshes) a session until `expiresAt` (epoch seconds). */
export async function recordCheckoutSession(
  projectId: number,
  sessionId: string,
  createdAt: string,
  expiresAt: number,
) {
  await db().entities.checkoutSession.put({ projectId, sessionId, createdAt, expiresAt }).go({ response: 'none' });
}

/** Whether the project created this session and its record has not expired at `nowSeconds`. */
export async function checkoutSessionKnown(projectId: number, sessionId: string, nowSeconds: number): Promise<boolean> {
  const { data } = await db().entities.checkoutSession.get({ projectId, sessionId }).go();
  // DynamoDB deletes an expired item some time after its TTL: until then it is still returned.
  return data !== null && data.expiresAt > nowSeconds;
}
