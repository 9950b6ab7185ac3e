import { groupRoutes } from '#shared/routes.ts';

export const paymentsRoutes = groupRoutes('payments', {
  'POST /api/payments/checkout': 'public',
  'OPTIONS /api/payments/checkout': 'public',
  'POST /api/payments/checkout/custom': 'public',
  'OPTIONS /api/payments/checkout/custom': 'public',
  'GET /api/payments/receipt': 'public',
  'OPTIONS /api/payments/receipt': 'public',
  // A pricing page's view by a visitor (lifecycle.md §5): here, beside checkout, because its
  // count is a payment record (the only items this function may write).
  'POST /api/share/{shareId}/views': 'public',
  'OPTIONS /api/share/{shareId}/views': 'public',
});
