import { echo, NotFoundError } from '#domain/errors.ts';
import { findRoute, methodsOf, type Route, routes } from '#shared/routes.ts';
import { methodNotAllowed } from './errors.ts';

const compiled = routes.map((route) => ({
  route,
  pattern: new RegExp(`^${route.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{(\w+)\}/g, '(?<$1>[^/]+)')}$`),
}));

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

/** What API Gateway does with the route table: used by the local server and `$default`. */
export function matchRoute(method: string, path: string): RouteMatch {
  const allow: string[] = [];
  for (const { route, pattern } of compiled) {
    const match = pattern.exec(path);
    if (!match) continue;
    const methods = methodsOf(route);
    if (methods.includes(method)) {
      const pathParameters = Object.fromEntries(Object.entries(match.groups ?? {}).map(([k, v]) => [k, decode(v)]));
      return { kind: 'route', route, key: `${method} ${route.path}`, pathParameters };
    }
    allow.push(...methods);
  }
  return allow.length > 0 ? { kind: 'method_not_allowed', allow } : { kind: 'not_found' };
}

/** The error for a request that no route of the table serves. */
export function unmatchedError(method: string, path: string): Error {
  const match = matchRoute(method, path);
  if (match.kind === 'method_not_allowed') return methodNotAllowed(method, path, match.allow);
  return new NotFoundError(`No endpoint ${method} ${echo(path)}. See the README for the API.`);
}

/**
 * Whether an answer is the widget's, readable from any origin: decided by the route API
 * Gateway matched (`routeKey`), or, for a request no route matched (`$default`), by whether
 * the path fits a public route's template (a 405 of a public path). Never by a path prefix:
 * under a stage or a custom domain's base path the raw path starts with something else.
 */
export function isPublicRequest(routeKey: string, rawPath: string): boolean {
  const route = findRoute(routeKey);
  if (route) return route.auth === 'public';
  return compiled.some(({ route, pattern }) => route.auth === 'public' && pattern.test(rawPath));
}
