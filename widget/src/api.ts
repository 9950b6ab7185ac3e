import type { BillingInterval } from '#contract/enums.ts';
import type { ShareData } from './types.ts';

/** A call that failed, never a thrown error: the widget shows each kind. */
type Failure = { ok: false; kind: 'not_found' | 'rejected' | 'network'; status: number; message: string };

/** What a call to the service ended in. */
export type Outcome<T> = { ok: true; value: T } | Failure;

/** The share load's outcome: its headers say whether an experiment runs. */
export type ShareOutcome = { ok: true; value: ShareData; headers: Headers } | Failure;

const NETWORK_MESSAGE = 'Could not reach the pricing service. Check your connection and try again.';

/** A call's outcome, without the answer's headers: only the share load reads them. */
async function call<T>(url: string, init: RequestInit, accept: (body: unknown) => body is T): Promise<Outcome<T>> {
  const outcome = await send(url, init, accept);
  return outcome.ok ? { ok: true, value: outcome.value } : outcome;
}

/** One request to the service and what it ended in, with the answer's headers. */
async function send<T>(
  url: string,
  init: RequestInit,
  accept: (body: unknown) => body is T,
): Promise<{ ok: true; value: T; headers: Headers } | Failure> {
  let response: Response;
  try {
    response = await fetch(url, { ...init, credentials: 'omit' });
  } catch {
    return { ok: false, kind: 'network', status: 0, message: NETWORK_MESSAGE };
  }
  const body: unknown = await response.json().catch(() => undefined);
  if (response.ok && accept(body)) return { ok: true, value: body, headers: response.headers };
  if (response.ok || response.status >= 500) {
    return { ok: false, kind: 'network', status: response.status, message: errorMessage(body) ?? NETWORK_MESSAGE };
  }
  return {
    ok: false,
    kind: response.status === 404 ? 'not_found' : 'rejected',
    status: response.status,
    message: errorMessage(body) ?? `The request was refused (${response.status}).`,
  };
}

/** The API's error body: {"error":{"code","message"}}. */
function errorMessage(body: unknown): string | undefined {
  const message = (body as { error?: { message?: unknown } } | undefined)?.error?.message;
  return typeof message === 'string' && message ? message : undefined;
}

const isObject = (body: unknown): body is Record<string, unknown> => typeof body === 'object' && body !== null;

const isShareData = (body: unknown): body is ShareData =>
  isObject(body) && Array.isArray(body.plans) && Array.isArray(body.features) && isObject(body.themeSettings);

/** Whether the answer everyone shares says that an experiment runs: a visitor id would change it. */
export const namesExperiment = (outcome: ShareOutcome): boolean =>
  outcome.ok && Boolean(outcome.headers.get('pricing-experiment'));

export interface CheckoutSession {
  sessionId: string;
  url: string;
}

/** Only a web address may be navigated to: never `javascript:` or the like, whatever answers. */
const isCheckoutSession = (body: unknown): body is CheckoutSession =>
  isObject(body) && typeof body.url === 'string' && /^https?:\/\//i.test(body.url);

/**
 * The share data: without a visitor, the answer everyone gets (cacheable by the CDN and the
 * browser); with one, while an experiment runs, the visitor's variant (never cached).
 */
export function loadShare(base: string, shareId: string, visitor?: string): Promise<ShareOutcome> {
  const query = visitor === undefined ? '' : `?visitor=${encodeURIComponent(visitor)}`;
  return send(`${base}/api/share/${encodeURIComponent(shareId)}${query}`, { method: 'GET' }, isShareData);
}

/**
 * Records the visitor's view of a page that runs an experiment; counted once per visitor by
 * the service. Its outcome changes nothing on the page, so it is not awaited nor reported.
 */
export function recordView(base: string, shareId: string, visitor: string): void {
  fetch(`${base}/api/share/${encodeURIComponent(shareId)}/views`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ visitor }),
    credentials: 'omit',
    keepalive: true,
  }).catch(() => {});
}

export type PlanCheckout = {
  shareId: string;
  planId: number;
  billingInterval: BillingInterval;
  seats?: number;
  customerId?: string;
  /** The visitor id: while an experiment runs, the service charges this visitor's variant price. */
  visitor?: string;
};
export type CustomCheckout = {
  shareId: string;
  customerId?: string;
  billingInterval: BillingInterval;
  features: Array<{ featureId: number; quantity?: number }>;
};

export function startCheckout(base: string, body: PlanCheckout | CustomCheckout): Promise<Outcome<CheckoutSession>> {
  const path = 'planId' in body ? '/api/payments/checkout' : '/api/payments/checkout/custom';
  return call(
    `${base}${path}`,
    { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) },
    isCheckoutSession,
  );
}

/** The customer token's customer, as `GET /api/share/{shareId}/customer` answers (lifecycle.md §2). */
export interface TokenCustomer {
  planId: number | null;
  status: string | null;
  billingInterval: BillingInterval | null;
  seats: number;
  cancelAtPeriodEnd: boolean;
  pendingPlanId: number | null;
}

export interface ChangePreview {
  amountDue: number;
  nextPeriodAmount: number;
}

const isTokenCustomer = (body: unknown): body is TokenCustomer => isObject(body) && 'planId' in body;
const isPreview = (body: unknown): body is ChangePreview =>
  isObject(body) && typeof body.amountDue === 'number' && typeof body.nextPeriodAmount === 'number';

export function loadCustomer(base: string, shareId: string, token: string): Promise<Outcome<TokenCustomer>> {
  return call(
    `${base}/api/share/${encodeURIComponent(shareId)}/customer`,
    { method: 'GET', headers: { authorization: `Bearer ${token}` } },
    isTokenCustomer,
  );
}

/** A call with the customer token: preview, change or the billing portal. */
export function tokenCall(
  base: string,
  token: string,
  what: 'subscription/preview' | 'subscription' | 'portal',
  body: Record<string, unknown>,
): Promise<Outcome<unknown>> {
  const accept = what === 'subscription/preview' ? isPreview : what === 'portal' ? isCheckoutSession : isTokenCustomer;
  return call(
    `${base}/api/payments/${what}`,
    {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify(body),
    },
    accept as (body: unknown) => body is unknown,
  );
}
