import { groupRoutes } from '#shared/routes.ts';

/** The docs function's routes: it bundles these and no other group's. */
export const docsRoutes = groupRoutes('docs', {
  // The OpenAPI document, in a function of its own so no other bundle carries it.
  'GET /openapi.json': 'public',
});
