import { groupRoutes } from '#shared/routes.ts';

export const projectsRoutes = groupRoutes('projects', {
  'GET /api/v1/projects': 'read',
  'POST /api/v1/projects': 'write',
  'GET /api/v1/projects/{slug}': 'read',
  'PUT /api/v1/projects/{slug}': 'write',
  'DELETE /api/v1/projects/{slug}': 'write',
  'GET /api/v1/projects/{slug}/changes': 'read',
  'GET /api/v1/projects/{slug}/webhook-endpoints': 'read',
  'POST /api/v1/projects/{slug}/webhook-endpoints': 'write',
  'DELETE /api/v1/projects/{slug}/webhook-endpoints/{endpointId}': 'write',
  'POST /api/v1/projects/{slug}/webhook-endpoints/{endpointId}/rotate-secret': 'write',
  'GET /api/v1/projects/{slug}/webhook-endpoints/{endpointId}/deliveries': 'read',
  'POST /api/v1/projects/{slug}/webhook-endpoints/{endpointId}/deliveries/{deliveryId}/retry': 'write',
  'GET /api/v1/projects/{slug}/experiments': 'read',
  'POST /api/v1/projects/{slug}/experiments': 'write',
  'GET /api/v1/projects/{slug}/experiments/{experimentId}': 'read',
  'PUT /api/v1/projects/{slug}/experiments/{experimentId}': 'write',
  'POST /api/v1/projects/{slug}/experiments/{experimentId}/start': 'write',
  'POST /api/v1/projects/{slug}/experiments/{experimentId}/stop': 'write',
  'GET /api/v1/projects/{slug}/experiments/{experimentId}/results': 'read',
});
