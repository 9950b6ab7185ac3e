import type { GroupRoute } from '#shared/routes.ts';

/** The docs function's routes: it bundles these and no other group's. */
export const docsRoutes = [
  // The OpenAPI document, in a function of its own so no other bundle carries it.
  { method: 'GET', path: '/openapi.json', group: 'docs', auth: 'public' },
] as const satisfies readonly GroupRoute<'docs'>[];
