import type { GroupRoute } from '#shared/routes.ts';

/** The customers function's routes: it bundles these and no other group's. */
export const customersRoutes = [
  { method: 'GET', path: '/api/v1/projects/{slug}/customers', group: 'customers', auth: 'read' },
  { method: 'GET', path: '/api/v1/projects/{slug}/customers/{customerId}', group: 'customers', auth: 'read' },
  { method: 'PUT', path: '/api/v1/projects/{slug}/customers/{customerId}', group: 'customers', auth: 'write' },
  { method: 'DELETE', path: '/api/v1/projects/{slug}/customers/{customerId}', group: 'customers', auth: 'write' },
  {
    method: 'GET',
    path: '/api/v1/projects/{slug}/customers/{customerId}/entitlements',
    group: 'customers',
    auth: 'read',
  },
  {
    method: 'GET',
    path: '/api/v1/projects/{slug}/customers/{customerId}/entitlements/{featureId}',
    group: 'customers',
    auth: 'read',
  },
  {
    method: 'POST',
    path: '/api/v1/projects/{slug}/customers/{customerId}/entitlements/{featureId}/consume',
    group: 'customers',
    auth: 'write',
  },
  // Plan changes after the sale (lifecycle.md §2), from the owner's backend.
  {
    method: 'POST',
    path: '/api/v1/projects/{slug}/customers/{customerId}/subscription/preview',
    group: 'customers',
    auth: 'read',
  },
  {
    method: 'POST',
    path: '/api/v1/projects/{slug}/customers/{customerId}/subscription',
    group: 'customers',
    auth: 'write',
  },
  {
    method: 'POST',
    path: '/api/v1/projects/{slug}/customers/{customerId}/subscription/cancel',
    group: 'customers',
    auth: 'write',
  },
  {
    method: 'POST',
    path: '/api/v1/projects/{slug}/customers/{customerId}/subscription/resume',
    group: 'customers',
    auth: 'write',
  },
  { method: 'POST', path: '/api/v1/projects/{slug}/customers/{customerId}/portal', group: 'customers', auth: 'write' },
  { method: 'POST', path: '/api/v1/projects/{slug}/customers/{customerId}/token', group: 'customers', auth: 'write' },
  // The same changes from the widget, with a customer token: public routes, and this function's
  // because they write customers (the payments function reads nothing of the base table).
  { method: 'GET', path: '/api/share/{shareId}/customer', group: 'customers', auth: 'public' },
  { method: 'OPTIONS', path: '/api/share/{shareId}/customer', group: 'customers', auth: 'public' },
  { method: 'POST', path: '/api/payments/subscription/preview', group: 'customers', auth: 'public' },
  { method: 'OPTIONS', path: '/api/payments/subscription/preview', group: 'customers', auth: 'public' },
  { method: 'POST', path: '/api/payments/subscription', group: 'customers', auth: 'public' },
  { method: 'OPTIONS', path: '/api/payments/subscription', group: 'customers', auth: 'public' },
  { method: 'POST', path: '/api/payments/subscription/cancel', group: 'customers', auth: 'public' },
  { method: 'OPTIONS', path: '/api/payments/subscription/cancel', group: 'customers', auth: 'public' },
  { method: 'POST', path: '/api/payments/subscription/resume', group: 'customers', auth: 'public' },
  { method: 'OPTIONS', path: '/api/payments/subscription/resume', group: 'customers', auth: 'public' },
  { method: 'POST', path: '/api/payments/portal', group: 'customers', auth: 'public' },
  { method: 'OPTIONS', path: '/api/payments/portal', group: 'customers', auth: 'public' },
  // Usage events: aggregated per customer, feature and month, read back in entitlements.
  { method: 'POST', path: '/api/v1/projects/{slug}/events', group: 'customers', auth: 'write' },
] as const satisfies readonly GroupRoute<'customers'>[];
