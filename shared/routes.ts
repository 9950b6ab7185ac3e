/**
 * The one route table. The local server routes with it now; the CDK API stack adds one
 * API Gateway route per entry, pointing at the entry's group function, so the two cannot
 * disagree. `auth` is what the route demands: public, a key with read, or read_write.
 */
export type Group = 'share' | 'payments' | 'webhooks' | 'projects' | 'features' | 'plans' | 'customers' | 'docs';
export type AuthKind = 'public' | 'read' | 'write';
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE' | 'OPTIONS';

interface RouteDefinition {
  method: HttpMethod;
  path: `/${string}`;
  group: Group;
  auth: AuthKind;
}

export const routes = [
  { method: 'GET', path: '/api/share/{shareId}', group: 'share', auth: 'public' },
  { method: 'OPTIONS', path: '/api/share/{shareId}', group: 'share', auth: 'public' },
  // The embeddable widget and a plain page that shows it, served by the same function.
  { method: 'GET', path: '/widget.js', group: 'share', auth: 'public' },
  { method: 'GET', path: '/demo/{shareId}', group: 'share', auth: 'public' },
  // What this API is and where its document is; whether it can reach its table.
  { method: 'GET', path: '/', group: 'share', auth: 'public' },
  { method: 'GET', path: '/health', group: 'share', auth: 'public' },

  { method: 'POST', path: '/api/payments/checkout', group: 'payments', auth: 'public' },
  { method: 'OPTIONS', path: '/api/payments/checkout', group: 'payments', auth: 'public' },
  { method: 'POST', path: '/api/payments/checkout/custom', group: 'payments', auth: 'public' },
  { method: 'OPTIONS', path: '/api/payments/checkout/custom', group: 'payments', auth: 'public' },
  { method: 'GET', path: '/api/payments/receipt', group: 'payments', auth: 'public' },
  { method: 'OPTIONS', path: '/api/payments/receipt', group: 'payments', auth: 'public' },
  // Stripe's events, signed with the project's webhook secret: public, no API key.
  { method: 'POST', path: '/api/payments/webhook/{shareId}', group: 'webhooks', auth: 'public' },

  { method: 'GET', path: '/api/v1/projects', group: 'projects', auth: 'read' },
  { method: 'POST', path: '/api/v1/projects', group: 'projects', auth: 'write' },
  { method: 'GET', path: '/api/v1/projects/{slug}', group: 'projects', auth: 'read' },
  { method: 'PUT', path: '/api/v1/projects/{slug}', group: 'projects', auth: 'write' },
  { method: 'DELETE', path: '/api/v1/projects/{slug}', group: 'projects', auth: 'write' },
  { method: 'GET', path: '/api/v1/projects/{slug}/changes', group: 'projects', auth: 'read' },

  { method: 'GET', path: '/api/v1/projects/{slug}/features', group: 'features', auth: 'read' },
  { method: 'POST', path: '/api/v1/projects/{slug}/features', group: 'features', auth: 'write' },
  { method: 'PUT', path: '/api/v1/projects/{slug}/features/{featureId}', group: 'features', auth: 'write' },
  { method: 'DELETE', path: '/api/v1/projects/{slug}/features/{featureId}', group: 'features', auth: 'write' },

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

  // The OpenAPI document, in a function of its own so no other bundle carries it.
  { method: 'GET', path: '/openapi.json', group: 'docs', auth: 'public' },
  { method: 'GET', path: '/api/v1/projects/{slug}/customers', group: 'customers', auth: 'read' },
  { method: 'GET', path: '/api/v1/projects/{slug}/customers/{customerId}', group: 'customers', auth: 'read' },
  { method: 'PUT', path: '/api/v1/projects/{slug}/customers/{customerId}', group: 'customers', auth: 'write' },
  { method: 'DELETE', path: '/api/v1/projects/{slug}/customers/{customerId}', group: 'customers', auth: 'write' },
  {
    method: 'GET',
    path: '/api/v1/projects/{slug}/customers/{customerId}/entitlements',
    group: 'customers',
    auth: 'read',
  },
  {
    method: 'GET',
    path: '/api/v1/projects/{slug}/customers/{customerId}/entitlements/{featureId}',
    group: 'customers',
    auth: 'read',
  },
  // Usage events (billing.md): aggregated per customer, feature and month, read back in entitlements.
  { method: 'POST', path: '/api/v1/projects/{slug}/events', group: 'customers', auth: 'write' },
] as const satisfies readonly RouteDefinition[];

/**
 * Requests that match no route (API Gateway's `$default` route) go to this group, whose
 * handler answers 404, or 405 with an Allow header when the path exists.
 */
export const fallbackGroup: Group = 'share';

export type Route = (typeof routes)[number];
type KeyOf<R> = R extends { method: infer M extends string; path: infer P extends string } ? `${M} ${P}` : never;
export type RouteKey = KeyOf<Route>;
export type GroupRouteKey<G extends Group> = KeyOf<Extract<Route, { group: G }>>;
export type RouteOf<K extends RouteKey> = K extends `${infer M} ${infer P}`
  ? Extract<Route, { method: M; path: P }>
  : never;

/** `{slug}` and `{planId}` in a path template become `{ slug: string; planId: string }`. */
export type PathParams<P extends string> = P extends `${string}{${infer Name}}${infer Rest}`
  ? { [K in Name]: string } & PathParams<Rest>
  : unknown;

export const routeKey = (route: Pick<Route, 'method' | 'path'>) => `${route.method} ${route.path}` as RouteKey;

/** A group's part of the table: its slice (shared/route-slices.ts) holds exactly these. */
export type GroupRoute<G extends Group> = Extract<Route, { group: G }>;

/**
 * Route keys looked up in `table` (the table, or one group's slice of it). `HEAD <path>`
 * names the GET route of that path: every GET also answers HEAD (RFC 9110 9.3.2), with the
 * same function, authentication and answer, minus the body (shared/http/group-handler.ts).
 * The table lists only the GET, so no bundle carries each route twice; API Gateway gets a
 * HEAD route beside each GET (infra/api-stack.ts, by `methodsOf`).
 */
export function routeLookup(table: readonly Route[]): (key: string) => Route | undefined {
  const byKey = new Map<string, Route>(table.map((route) => [routeKey(route), route]));
  return (key) => byKey.get(key.startsWith('HEAD ') ? `GET ${key.slice(5)}` : key);
}

// Built at the first lookup: nothing in this module runs at import, so a function that imports
// only `routeKey`, `methodsOf` or `routeLookup` from it bundles none of the table.
let inTable: ((key: string) => Route | undefined) | undefined;

/** The route a route key names in the whole table (HEAD names its GET: `routeLookup`). */
export function findRoute(key: string): Route | undefined {
  inTable ??= routeLookup(routes);
  return inTable(key);
}

/** The methods a route answers: its own, and HEAD beside a GET. */
export const methodsOf = (route: Pick<Route, 'method'>): readonly string[] =>
  route.method === 'GET' ? ['GET', 'HEAD'] : [route.method];
