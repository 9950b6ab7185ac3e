import type { GroupRoute } from '#shared/routes.ts';

/** The payments function's routes: it bundles these and no other group's. */
export const paymentsRoutes = [
  { method: 'POST', path: '/api/payments/checkout', group: 'payments', auth: 'public' },
  { method: 'OPTIONS', path: '/api/payments/checkout', group: 'payments', auth: 'public' },
  { method: 'POST', path: '/api/payments/checkout/custom', group: 'payments', auth: 'public' },
  { method: 'OPTIONS', path: '/api/payments/checkout/custom', group: 'payments', auth: 'public' },
  { method: 'GET', path: '/api/payments/receipt', group: 'payments', auth: 'public' },
  { method: 'OPTIONS', path: '/api/payments/receipt', group: 'payments', auth: 'public' },
  // A pricing page's view by a visitor (lifecycle.md §5): here, beside checkout, because its
  // count is a payment record (the only items this function may write).
  { method: 'POST', path: '/api/share/{shareId}/views', group: 'payments', auth: 'public' },
  { method: 'OPTIONS', path: '/api/share/{shareId}/views', group: 'payments', auth: 'public' },
] as const satisfies readonly GroupRoute<'payments'>[];
