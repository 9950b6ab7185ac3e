import type { GroupRoute } from '#shared/routes.ts';

/** The features function's routes: it bundles these and no other group's. */
export const featuresRoutes = [
  { method: 'GET', path: '/api/v1/projects/{slug}/features', group: 'features', auth: 'read' },
  { method: 'POST', path: '/api/v1/projects/{slug}/features', group: 'features', auth: 'write' },
  { method: 'PUT', path: '/api/v1/projects/{slug}/features/{featureId}', group: 'features', auth: 'write' },
  { method: 'DELETE', path: '/api/v1/projects/{slug}/features/{featureId}', group: 'features', auth: 'write' },
] as const satisfies readonly GroupRoute<'features'>[];
