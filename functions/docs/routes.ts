import { groupRoutes } from '#shared/routes.ts';

export const docsRoutes = groupRoutes('docs', {
  // The OpenAPI document, in a function of its own so no other bundle carries it.
  'GET /openapi.json': 'public',
});
