import type { GroupRoute } from '#shared/routes.ts';

/** The plans function's routes: it bundles these and no other group's. */
export const plansRoutes = [
  { method: 'GET', path: '/api/v1/projects/{slug}/plans', group: 'plans', auth: 'read' },
  { method: 'POST', path: '/api/v1/projects/{slug}/plans', group: 'plans', auth: 'write' },
  { method: 'PUT', path: '/api/v1/projects/{slug}/plans/{planId}', group: 'plans', auth: 'write' },
  { method: 'DELETE', path: '/api/v1/projects/{slug}/plans/{planId}', group: 'plans', auth: 'write' },
  { method: 'POST', path: '/api/v1/projects/{slug}/plans/{planId}/duplicate', group: 'plans', auth: 'write' },
  { method: 'GET', path: '/api/v1/projects/{slug}/plans/{planId}/features', group: 'plans', auth: 'read' },
  { method: 'POST', path: '/api/v1/projects/{slug}/plans/{planId}/features', group: 'plans', auth: 'write' },
  { method: 'DELETE', path: '/api/v1/projects/{slug}/plans/{planId}/features', group: 'plans', auth: 'write' },
  { method: 'PUT', path: '/api/v1/projects/{slug}/plans/{planId}/features/{featureId}', group: 'plans', auth: 'write' },
  { method: 'GET', path: '/api/v1/projects/{slug}/plans/{planId}/versions', group: 'plans', auth: 'read' },
  { method: 'POST', path: '/api/v1/projects/{slug}/plans/{planId}/migrate', group: 'plans', auth: 'write' },
] as const satisfies readonly GroupRoute<'plans'>[];
