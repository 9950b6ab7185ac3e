import type { ProjectItem } from '#db/types.ts';

/**
 * What can be said of a project's payment key without opening it. Kept apart from
 * account.ts, which opens and seals keys, so that functions that never touch a key (share,
 * features, plans) do not bundle the KMS client.
 */

export type PaymentsMode = 'test' | 'live';

/** Stripe secret (`sk_`) and restricted (`rk_`) keys, test or live. */
export const paymentKeyPattern = /^(?:sk|rk)_(test|live)_[A-Za-z0-9]{8,247}$/;

export const paymentsModeOf = (secretKey: string): PaymentsMode =>
  paymentKeyPattern.exec(secretKey)?.[1] === 'live' ? 'live' : 'test';

export const paymentsConnected = (project: ProjectItem) => project.paymentKeySealed !== undefined;

/** A Stripe webhook signing secret: Stripe's prefix, and a bounded length. */
export const webhookSecretPattern = /^whsec_[A-Za-z0-9]{16,200}$/;

export const paymentWebhookConnected = (project: ProjectItem) => project.webhookSecretSealed !== undefined;

/** The URL to paste into Stripe's dashboard: the public base URL, without a trailing slash. */
export const webhookUrl = (publicBaseUrl: string, shareId: string) =>
  `${publicBaseUrl.replace(/\/+$/, '')}/api/payments/webhook/${shareId}`;
