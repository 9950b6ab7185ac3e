import { groupRoutes } from '#shared/routes.ts';

export const plansRoutes = groupRoutes('plans', {
  'GET /api/v1/projects/{slug}/plans': 'read',
  'POST /api/v1/projects/{slug}/plans': 'write',
  'PUT /api/v1/projects/{slug}/plans/{planId}': 'write',
  'DELETE /api/v1/projects/{slug}/plans/{planId}': 'write',
  'POST /api/v1/projects/{slug}/plans/{planId}/duplicate': 'write',
  'GET /api/v1/projects/{slug}/plans/{planId}/features': 'read',
  'POST /api/v1/projects/{slug}/plans/{planId}/features': 'write',
  'DELETE /api/v1/projects/{slug}/plans/{planId}/features': 'write',
  'PUT /api/v1/projects/{slug}/plans/{planId}/features/{featureId}': 'write',
  'GET /api/v1/projects/{slug}/plans/{planId}/versions': 'read',
  'POST /api/v1/projects/{slug}/plans/{planId}/migrate': 'write',
});
