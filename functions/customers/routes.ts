import { groupRoutes } from '#shared/routes.ts';

export const customersRoutes = groupRoutes('customers', {
  'GET /api/v1/projects/{slug}/customers': 'read',
  'GET /api/v1/projects/{slug}/customers/{customerId}': 'read',
  'PUT /api/v1/projects/{slug}/customers/{customerId}': 'write',
  'DELETE /api/v1/projects/{slug}/customers/{customerId}': 'write',
  'GET /api/v1/projects/{slug}/customers/{customerId}/entitlements': 'read',
  'GET /api/v1/projects/{slug}/customers/{customerId}/entitlements/{featureId}': 'read',
  'POST /api/v1/projects/{slug}/customers/{customerId}/entitlements/{featureId}/consume': 'write',
  // Plan changes after the sale (lifecycle.md §2), from the owner's backend.
  'POST /api/v1/projects/{slug}/customers/{customerId}/subscription/preview': 'read',
  'POST /api/v1/projects/{slug}/customers/{customerId}/subscription': 'write',
  'POST /api/v1/projects/{slug}/customers/{customerId}/subscription/cancel': 'write',
  'POST /api/v1/projects/{slug}/customers/{customerId}/subscription/resume': 'write',
  'POST /api/v1/projects/{slug}/customers/{customerId}/portal': 'write',
  'POST /api/v1/projects/{slug}/customers/{customerId}/token': 'write',
  // The same changes from the widget, with a customer token: public routes, and this function's
  // because they write customers (the payments function reads nothing of the base table).
  'GET /api/share/{shareId}/customer': 'public',
  'OPTIONS /api/share/{shareId}/customer': 'public',
  'POST /api/payments/subscription/preview': 'public',
  'OPTIONS /api/payments/subscription/preview': 'public',
  'POST /api/payments/subscription': 'public',
  'OPTIONS /api/payments/subscription': 'public',
  'POST /api/payments/subscription/cancel': 'public',
  'OPTIONS /api/payments/subscription/cancel': 'public',
  'POST /api/payments/subscription/resume': 'public',
  'OPTIONS /api/payments/subscription/resume': 'public',
  'POST /api/payments/portal': 'public',
  'OPTIONS /api/payments/portal': 'public',
  // Usage events: aggregated per customer, feature and month, read back in entitlements.
  'POST /api/v1/projects/{slug}/events': 'write',
});
