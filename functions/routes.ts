import { type Group, type KeyOf, routeLookup } from '#shared/routes.ts';
import { customersRoutes } from './customers/routes.ts';
import { docsRoutes } from './docs/routes.ts';
import { featuresRoutes } from './features/routes.ts';
import { paymentsRoutes } from './payments/routes.ts';
import { plansRoutes } from './plans/routes.ts';
import { projectsRoutes } from './projects/routes.ts';
import { shareRoutes } from './share/routes.ts';
import { webhooksRoutes } from './webhooks/routes.ts';

/**
 * Every group's routes by group: a group missing here is a type error. Only what routes every
 * request imports this (the local server, the `$default` fallback function, infra/, the
 * OpenAPI generator); a group's own function imports its own list.
 */
export const routesByGroup = {
  share: shareRoutes,
  payments: paymentsRoutes,
  webhooks: webhooksRoutes,
  projects: projectsRoutes,
  features: featuresRoutes,
  plans: plansRoutes,
  docs: docsRoutes,
  customers: customersRoutes,
} as const satisfies { [G in Group]: readonly { group: G }[] };

export type Route = (typeof routesByGroup)[Group][number];

/** The whole route table: the union of the groups' routes, group by group in the order above. */
export const routes: readonly Route[] = Object.values(routesByGroup).flat();

export type RouteKey = KeyOf<Route>;

/**
 * Requests that match no route (API Gateway's `$default` route) go to this group, whose
 * handler routes by the whole table to answer 404, or 405 with an Allow header when the path
 * exists.
 */
export const fallbackGroup: Group = 'share';

/** The route a route key names in the whole table (HEAD names its GET: `routeLookup`). */
export const findRoute: (key: string) => Route | undefined = routeLookup(routes);
