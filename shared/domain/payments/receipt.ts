import { fromMinorUnits } from '#contract/pricing.ts';
import { echo, NotFoundError, PaymentProviderError } from '../errors.ts';
import { loadSharedProject } from '../share/share.ts';
import { openPaymentKey, requirePaymentsConnected } from './account.ts';
import { type Caller, type CheckoutPorts, CUSTOM_PLAN_NAME } from './checkout.ts';
import { hasFeatureDetails } from './feature-details.ts';
import { countPublicPaymentCall } from './rate-limit.ts';
import type { ReceiptView } from './schemas.ts';
import { isOwnCheckoutSession } from './sessions.ts';

/** Stripe ids are word characters; anything else names no session and is not sent on. */
const sessionIdPattern = /^[A-Za-z0-9_]{1,255}$/;

/**
 * The receipt of a completed checkout, read from the project's own Stripe account. A
 * session of another project (even one on the same Stripe account) is a 404, as is one
 * not completed yet. Receipts of a deactivated project still work: the purchase happened.
 * Only sessions this service created for the project are looked up at Stripe (any other id
 * is a 404 that costs no Stripe call), and each lookup counts in the project's rate limit.
 */
export async function getReceipt(
  ports: CheckoutPorts,
  shareId: string,
  sessionId: string,
  caller: Pick<Caller, 'clientAddress'>,
): Promise<ReceiptView> {
  const { project, plans } = await loadSharedProject(shareId, { includeInactive: true });
  const notFound = new NotFoundError(`No completed checkout session "${echo(sessionId)}" on this pricing page.`);
  if (!sessionIdPattern.test(sessionId)) throw notFound;
  requirePaymentsConnected(project);
  if (!(await isOwnCheckoutSession(ports.clock, project.projectId, sessionId))) throw notFound;
  await countPublicPaymentCall(ports.clock, project.projectId, caller.clientAddress);
  const secretKey = await openPaymentKey(ports.keyring, project);
  const session = await ports.payments.retrieveCheckoutSession(secretKey, sessionId);
  if (!session || session.metadata.projectId !== String(project.projectId)) throw notFound;
  if (session.status !== 'complete' || !session.subscription) throw notFound;

  const interval = session.subscription.interval;
  if (!interval) throw new PaymentProviderError('Stripe returned a subscription without a billing interval.');
  const customPlan = hasFeatureDetails(session.metadata) || session.metadata.planId === undefined;
  const plan = plans.find((p) => String(p.planId) === session.metadata.planId);
  const currency = (session.currency ?? project.currency).toUpperCase();
  return {
    // A plan deleted since the purchase keeps the name Stripe stored for it.
    planName: customPlan ? CUSTOM_PLAN_NAME : (plan?.name ?? session.productName ?? `Plan ${session.metadata.planId}`),
    customPlan,
    total: fromMinorUnits(session.amountTotal ?? 0, currency),
    currency,
    customer: { email: session.customerEmail },
    billingInterval: interval,
    subscriptionId: session.subscription.id,
    metadata: session.metadata,
  };
}
