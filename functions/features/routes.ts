import { groupRoutes } from '#shared/routes.ts';

export const featuresRoutes = groupRoutes('features', {
  'GET /api/v1/projects/{slug}/features': 'read',
  'POST /api/v1/projects/{slug}/features': 'write',
  'PUT /api/v1/projects/{slug}/features/{featureId}': 'write',
  'DELETE /api/v1/projects/{slug}/features/{featureId}': 'write',
});
