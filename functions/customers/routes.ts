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
  // Usage events: aggregated per customer, feature and month, read back in entitlements.
  { method: 'POST', path: '/api/v1/projects/{slug}/events', group: 'customers', auth: 'write' },
] as const satisfies readonly GroupRoute<'customers'>[];
