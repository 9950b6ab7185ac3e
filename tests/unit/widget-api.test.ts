import { afterEach, expect, test, vi } from 'vitest';
import { loadCustomer, loadShare, namesExperiment, startCheckout } from '../../widget/src/api.ts';

/**
 * The widget's calls to the service (widget/src/api.ts), with fetch answering in place of the
 * service: only the share load hands back the answer's headers, which say whether an
 * experiment runs; every other outcome is its value alone.
 */
afterEach(() => {
  vi.unstubAllGlobals();
});

const BASE = 'https://pricing.example';
const EXPERIMENT = { 'pricing-experiment': 'exp_1' };

function answering(body: unknown, headers: Record<string, string> = {}) {
  vi.stubGlobal(
    'fetch',
    vi.fn(async () => new Response(JSON.stringify(body), { status: 200, headers })),
  );
}

test('the share load keeps the headers that name a running experiment', async () => {
  answering({ plans: [], features: [], themeSettings: {} }, EXPERIMENT);
  const shared = await loadShare(BASE, 'share_1');
  expect(shared.ok && shared.headers.get('pricing-experiment')).toBe('exp_1');
  expect(namesExperiment(shared)).toBe(true);
  answering({ plans: [], features: [], themeSettings: {} });
  expect(namesExperiment(await loadShare(BASE, 'share_1'))).toBe(false);
});

test('the other calls hand back their value alone', async () => {
  const session = { sessionId: 'cs_1', url: 'https://checkout.example/cs_1' };
  answering(session, EXPERIMENT);
  expect(await startCheckout(BASE, { shareId: 'share_1', planId: 1, billingInterval: 'month' })).toEqual({
    ok: true,
    value: session,
  });
  const customer = { planId: 1, status: 'active', billingInterval: 'month', seats: 1, cancelAtPeriodEnd: false };
  answering(customer, EXPERIMENT);
  expect(await loadCustomer(BASE, 'share_1', 'token')).toEqual({ ok: true, value: customer });
});
