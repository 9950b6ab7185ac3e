import type { GroupRoute } from '#shared/routes.ts';

/** The projects function's routes: it bundles these and no other group's. */
export const projectsRoutes = [
  { method: 'GET', path: '/api/v1/projects', group: 'projects', auth: 'read' },
  { method: 'POST', path: '/api/v1/projects', group: 'projects', auth: 'write' },
  { method: 'GET', path: '/api/v1/projects/{slug}', group: 'projects', auth: 'read' },
  { method: 'PUT', path: '/api/v1/projects/{slug}', group: 'projects', auth: 'write' },
  { method: 'DELETE', path: '/api/v1/projects/{slug}', group: 'projects', auth: 'write' },
  { method: 'GET', path: '/api/v1/projects/{slug}/changes', group: 'projects', auth: 'read' },
  { method: 'GET', path: '/api/v1/projects/{slug}/webhook-endpoints', group: 'projects', auth: 'read' },
  { method: 'POST', path: '/api/v1/projects/{slug}/webhook-endpoints', group: 'projects', auth: 'write' },
  {
    method: 'DELETE',
    path: '/api/v1/projects/{slug}/webhook-endpoints/{endpointId}',
    group: 'projects',
    auth: 'write',
  },
  {
    method: 'POST',
    path: '/api/v1/projects/{slug}/webhook-endpoints/{endpointId}/rotate-secret',
    group: 'projects',
    auth: 'write',
  },
  {
    method: 'GET',
    path: '/api/v1/projects/{slug}/webhook-endpoints/{endpointId}/deliveries',
    group: 'projects',
    auth: 'read',
  },
  {
    method: 'POST',
    path: '/api/v1/projects/{slug}/webhook-endpoints/{endpointId}/deliveries/{deliveryId}/retry',
    group: 'projects',
    auth: 'write',
  },
  { method: 'GET', path: '/api/v1/projects/{slug}/experiments', group: 'projects', auth: 'read' },
  { method: 'POST', path: '/api/v1/projects/{slug}/experiments', group: 'projects', auth: 'write' },
  { method: 'GET', path: '/api/v1/projects/{slug}/experiments/{experimentId}', group: 'projects', auth: 'read' },
  { method: 'PUT', path: '/api/v1/projects/{slug}/experiments/{experimentId}', group: 'projects', auth: 'write' },
  {
    method: 'POST',
    path: '/api/v1/projects/{slug}/experiments/{experimentId}/start',
    group: 'projects',
    auth: 'write',
  },
  { method: 'POST', path: '/api/v1/projects/{slug}/experiments/{experimentId}/stop', group: 'projects', auth: 'write' },
  {
    method: 'GET',
    path: '/api/v1/projects/{slug}/experiments/{experimentId}/results',
    group: 'projects',
    auth: 'read',
  },
] as const satisfies readonly GroupRoute<'projects'>[];
