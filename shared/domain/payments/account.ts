import type { ProjectItem } from '#db/types.ts';
import { PaymentsNotConfiguredError } from '../errors.ts';
import { type Keyring, SecretUnreadableError } from '../ports.ts';
import { paymentsModeOf } from './payment-key.ts';

/**
 * A project's payment account: its own Stripe key, stored only sealed (envelope
 * encryption through the keyring), and the redirect URLs of the key's mode.
 */

/** Binds a sealed key to its project: copied onto another project, it does not open. */
const contextOf = (projectId: number) => ({ projectId: String(projectId), field: 'paymentSecretKey' });

export async function sealPaymentKey(keyring: Keyring, projectId: number, secretKey: string) {
  return {
    paymentKeySealed: await keyring.seal(secretKey, contextOf(projectId)),
    paymentsMode: paymentsModeOf(secretKey),
  };
}

const notConnected = () =>
  new PaymentsNotConfiguredError(
    'This pricing page cannot take payments yet: its owner has not connected a Stripe account.',
  );

/** A 409 for a project without a payment key, told without opening anything. */
export function requirePaymentsConnected(project: ProjectItem): void {
  if (!project.paymentKeySealed) throw notConnected();
}

/** The plaintext key, for one call to Stripe; never stored, logged or returned. */
export async function openPaymentKey(keyring: Keyring, project: ProjectItem): Promise<string> {
  if (!project.paymentKeySealed) throw notConnected();
  try {
    return await keyring.open(project.paymentKeySealed, contextOf(project.projectId));
  } catch (error) {
    if (error instanceof SecretUnreadableError) {
      // The sealing key changed (e.g. a local key file was replaced): the owner must set it again.
      throw new PaymentsNotConfiguredError(
        'This pricing page cannot take payments: its payment key can no longer be read; the owner must set paymentSecretKey again.',
      );
    }
    throw error;
  }
}

/** The redirect URLs of the key's mode: test keys use the checkoutTest*Urls, live keys the others. */
export function checkoutRedirects(project: ProjectItem): { successUrl: string; cancelUrl: string } {
  if (!project.paymentKeySealed) throw notConnected();
  const live = project.paymentsMode === 'live';
  const successUrl = live ? project.checkoutSuccessUrl : project.checkoutTestSuccessUrl;
  const cancelUrl = live ? project.checkoutCancelUrl : project.checkoutTestCancelUrl;
  if (!successUrl || !cancelUrl) {
    const fields = live
      ? 'checkoutSuccessUrl and checkoutCancelUrl'
      : 'checkoutTestSuccessUrl and checkoutTestCancelUrl';
    throw new PaymentsNotConfiguredError(
      `This pricing page cannot take payments yet: its owner has a ${live ? 'live' : 'test'} key but has not set ${fields}.`,
    );
  }
  return { successUrl: withSessionIdPlaceholder(successUrl), cancelUrl };
}

/**
 * Adds `session_id={CHECKOUT_SESSION_ID}` to the query, keeping any query and fragment
 * there. Built by hand because URLSearchParams would percent-encode the braces, and
 * Stripe only substitutes the literal placeholder.
 */
export function withSessionIdPlaceholder(url: string): string {
  const hashAt = url.indexOf('#');
  const base = hashAt === -1 ? url : url.slice(0, hashAt);
  const fragment = hashAt === -1 ? '' : url.slice(hashAt);
  const separator = !base.includes('?') ? '?' : base.endsWith('?') || base.endsWith('&') ? '' : '&';
  return `${base}${separator}session_id={CHECKOUT_SESSION_ID}${fragment}`;
}
