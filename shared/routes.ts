/**
 * The vocabulary of routes. Each group declares its own routes in its folder
 * (functions/<group>/routes.ts), so a group's function bundles its own list and no other;
 * the whole table is their union (functions/routes.ts), which API Gateway (infra/), the local
 * server and the `$default` fallback function route by. `auth` is what the route demands:
 * public, a key with read, or read_write.
 */
export type Group = 'share' | 'payments' | 'webhooks' | 'projects' | 'features' | 'plans' | 'customers' | 'docs';
export type AuthKind = 'public' | 'read' | 'write';
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE' | 'OPTIONS';

export interface RouteDefinition<G extends Group = Group> {
  method: HttpMethod;
  path: `/${string}`;
  group: G;
  auth: AuthKind;
}

type RouteKeyText = `${HttpMethod} /${string}`;

type RouteFrom<G extends Group, K, A> = K extends `${infer M extends HttpMethod} ${infer P extends `/${string}`}`
  ? { readonly method: M; readonly path: P; readonly group: G; readonly auth: A }
  : never;

/**
 * A group's routes (functions/<group>/routes.ts) from a table of route key to what it
 * demands, in the table's order; each route keeps its literal method and path, so an
 * action's key is checked against them.
 */
export function groupRoutes<G extends Group, const T extends { readonly [key: RouteKeyText]: AuthKind }>(
  group: G,
  table: T,
): readonly { [K in keyof T]: RouteFrom<G, K, T[K]> }[keyof T][] {
  return Object.entries(table).map(([key, auth]) => {
    const [method, path] = key.split(' ');
    return { method, path, group, auth } as { [K in keyof T]: RouteFrom<G, K, T[K]> }[keyof T];
  });
}

/** `GET /api/share/{shareId}` for that route. */
export type KeyOf<R> = R extends { method: infer M extends string; path: infer P extends string } ? `${M} ${P}` : never;

/** The route of `routes` that a key names. */
export type RouteIn<R, K extends string> = K extends `${infer M} ${infer P}`
  ? Extract<R, { method: M; path: P }>
  : never;

/**
 * Every answer under these paths carries `Access-Control-Allow-Origin: *`,
 * whether a route matched or not (a 404 or 405 there must reach the widget's page as itself,
 * not as a CORS failure). Matched against the raw path of a request no route matched.
 */
export const publicPathPrefixes = ['/api/share', '/api/payments'] as const;

export const routeKey = (route: Pick<RouteDefinition, 'method' | 'path'>) => `${route.method} ${route.path}`;

/**
 * Route keys looked up in `table` (the whole table, or one group's routes). `HEAD <path>`
 * names the GET route of that path: every GET also answers HEAD (RFC 9110 9.3.2), with the
 * same function, authentication and answer, minus the body (`headWithoutBody`). The
 * table lists only the GET, so no bundle carries each route twice; API Gateway gets a HEAD
 * route beside each GET (infra/api-stack.ts, by `methodsOf`).
 */
export function routeLookup<R extends RouteDefinition>(table: readonly R[]): (key: string) => R | undefined {
  const byKey = new Map<string, R>(table.map((route) => [routeKey(route), route]));
  return (key) => byKey.get(key.startsWith('HEAD ') ? `GET ${key.slice(5)}` : key);
}

/** The methods a route answers: its own, and HEAD beside a GET. */
export const methodsOf = (route: Pick<RouteDefinition, 'method'>): readonly string[] =>
  route.method === 'GET' ? ['GET', 'HEAD'] : [route.method];
