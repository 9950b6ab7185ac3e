import { echo, NotFoundError } from '#domain/errors.ts';
import { methodsOf, publicPathPrefixes, type RouteDefinition as Route, routeLookup } from '#shared/routes.ts';
import { methodNotAllowed } from './errors.ts';

const decode = (value: string) => {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
};

export type RouteMatch =
  /** `key`: the route key API Gateway would name (`HEAD /widget.js` for the GET route of a HEAD). */
  | { kind: 'route'; route: Route; key: string; pathParameters: Record<string, string> }
  | { kind: 'method_not_allowed'; allow: string[] }
  | { kind: 'not_found' };

export interface Router {
  /** The route a route key names (`HEAD <path>` names its GET). */
  find(key: string): Route | undefined;
  /** What API Gateway does with these routes: used by the local server and `$default`. */
  match(method: string, path: string): RouteMatch;
  /** The error for a request that none of these routes serves: 405 with its Allow, or 404. */
  unmatchedError(method: string, path: string): Error;
  /**
   * Whether an answer is the widget's, readable from any origin: decided by the route API
   * Gateway matched (`routeKey`), never by the raw path (under a stage or a custom domain's
   * base path it starts with something else); for a request no route matched (`$default`),
   * by whether the path fits a public route's template (a 405 of a public path) or lies
   * under a public prefix (`publicPathPrefixes`: a 404 under `/api/share/`).
   */
  isPublicRequest(routeKey: string, rawPath: string): boolean;
}

const underPublicPrefix = (path: string) =>
  publicPathPrefixes.some((prefix) => path === prefix || path.startsWith(`${prefix}/`));

/**
 * Routing over `routes`: the whole table (the local server, and the `$default` fallback
 * function, which answers every request no route matched), or one group's own routes
 * (functions/<group>/routes.ts: API Gateway sends a group's function those only).
 */
export function createRouter(routes: readonly Route[]): Router {
  const find = routeLookup(routes);
  const compiled = routes.map((route) => ({
    route,
    pattern: new RegExp(`^${route.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{(\w+)\}/g, '(?<$1>[^/]+)')}$`),
  }));
  const match = (method: string, path: string): RouteMatch => {
    const allow: string[] = [];
    for (const { route, pattern } of compiled) {
      const found = pattern.exec(path);
      if (!found) continue;
      const methods = methodsOf(route);
      if (methods.includes(method)) {
        const pathParameters = Object.fromEntries(Object.entries(found.groups ?? {}).map(([k, v]) => [k, decode(v)]));
        return { kind: 'route', route, key: `${method} ${route.path}`, pathParameters };
      }
      allow.push(...methods);
    }
    return allow.length > 0 ? { kind: 'method_not_allowed', allow } : { kind: 'not_found' };
  };
  return {
    find,
    match,
    unmatchedError(method, path) {
      const matched = match(method, path);
      if (matched.kind === 'method_not_allowed') return methodNotAllowed(method, path, matched.allow);
      return new NotFoundError(`No endpoint ${method} ${echo(path)}. See the README for the API.`);
    },
    isPublicRequest(routeKey, rawPath) {
      const route = find(routeKey);
      if (route) return route.auth === 'public';
      return (
        underPublicPrefix(rawPath) ||
        compiled.some(({ route, pattern }) => route.auth === 'public' && pattern.test(rawPath))
      );
    },
  };
}
