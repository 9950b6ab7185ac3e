import type * as z from 'zod';
import type { ErrorCode } from '#domain/errors.ts';
import type { Principal } from '#domain/keys/keys.ts';
import type { Ports } from '#domain/ports.ts';
import type { ProjectKey } from '#domain/projects/load.ts';
import type { RuntimeConfig } from '#shared/config.ts';
import type { groupSpecs } from '#shared/function-specs.ts';
import type { Group, KeyOf, RouteDefinition, RouteIn } from '#shared/routes.ts';
import type { HttpErrorCode } from './errors.ts';
import type { ParsedPath } from './params.ts';
import type { HttpResult } from './responses.ts';

/**
 * The ports a group's actions are handed, as its spec lists them. A group's Lambda entry
 * must build exactly these (the compiler checks it), so a function bundles only the
 * adapters it uses.
 */
export type GroupPorts<G extends Group> = Pick<Ports, (typeof groupSpecs)[G]['ports'][number]>;

type Output<S, Otherwise> = [S] extends [() => infer T extends z.ZodType] ? z.output<T> : Otherwise;
type ProjectOf<R extends RouteDefinition> = R['auth'] extends 'public'
  ? undefined
  : ParsedPath<R['path']> extends { slug: string }
    ? ProjectKey
    : undefined;

/** What an action of route `R` sees: everything parsed by the route's declared schemas, and its ports. */
export interface ActionRequest<R extends RouteDefinition, B, Q> {
  principal: R['auth'] extends 'public' ? undefined : Principal;
  path: ParsedPath<R['path']>;
  /** The caller's project on routes with `{slug}` (shared/http/params.ts `projectKey`). */
  project: ProjectOf<R>;
  query: Output<Q, Record<string, string | undefined>>;
  body: Output<B, undefined>;
  /** The body exactly as received (a webhook's signature covers these bytes); '' when none. */
  rawBody: string;
  headers: Record<string, string | undefined>;
  /** The sender's address (shared/http/client-address.ts). */
  clientAddress: string;
  ports: GroupPorts<R['group']>;
  config: RuntimeConfig;
}

/** A success answer that is not a JSON body: a script, a page, a preflight's empty 204. */
export interface OtherResponse {
  description: string;
  /** Absent: no body. */
  contentType?: string;
}

/**
 * What the OpenAPI document (docs/openapi.json, `npm run openapi`) says of a route, beside
 * the schemas that validate its requests. Error answers the pipeline gives by the route's
 * shape are added by the generator (401/403 by `auth`, 400 with a body or query, 413 with a
 * body, 404 with a path parameter, 500 everywhere); `errors` names those the action itself
 * can answer beyond them. The integration tests check every answer against the document, so
 * an answer it does not list fails them.
 */
export interface RouteDoc {
  /** A stable name for client generators, e.g. `createPlan`. */
  operationId: string;
  summary: string;
  description?: string;
  /** The body as documented, where the validating schema cannot show it (a transform). */
  body?: () => z.ZodType;
  /** The query string as documented, where the route reads it without a schema. */
  query?: () => z.ZodType;
  /**
   * Success answers by status: the JSON body's schema (its output, built when the document is
   * written: `lazySchema`), or what else it sends.
   */
  responses: { [status: number]: (() => z.ZodType) | OtherResponse };
  errors?: readonly (ErrorCode | HttpErrorCode)[];
  /**
   * Its ETags (shared/http/etag.ts): 'read', a GET that answers with one and 304 to an
   * If-None-Match that names it; 'write', a write (PUT, DELETE, a plan's migrate) that takes If-Match (412 when stale)
   * and, when it answers with the resource, its new ETag; 'tagged', a create answering with
   * the new resource's ETag.
   */
  etag?: 'read' | 'write' | 'tagged';
}

/**
 * A route's action with its schemas, each built at the route's first request (`lazySchema`):
 * `body` (a JSON body, required unless `optionalBody`, whose absence then parses as `{}`),
 * `query` (the query string). Path parameters are parsed by name (shared/http/params.ts) after
 * them, so a bad body is a 400 before an unknown id is a 404.
 */
export interface ActionDefinition<R extends RouteDefinition, B, Q> {
  body?: B;
  optionalBody?: boolean;
  query?: Q;
  /** Its documentation (every route has one: a test names any route without). */
  doc?: RouteDoc;
  run(request: ActionRequest<R, B, Q>): Promise<HttpResult>;
}

/** An action bound to its route key, with its types erased, as the pipeline handles it. */
export interface RouteAction<K extends string = string> {
  key: K;
  body?: () => z.ZodType;
  optionalBody?: boolean;
  query?: () => z.ZodType;
  doc?: RouteDoc;
  run(request: unknown): Promise<HttpResult>;
}

/**
 * The `route(key, definition)` of a group's actions file: the key names one of `routes` (the
 * group's own list, functions/<group>/routes.ts), and the action is typed by that route.
 */
export function routesIn<const R extends readonly RouteDefinition[]>(_routes: R) {
  return <
    K extends KeyOf<R[number]>,
    B extends (() => z.ZodType) | undefined = undefined,
    Q extends (() => z.ZodType) | undefined = undefined,
  >(
    key: K,
    definition: ActionDefinition<RouteIn<R[number], K>, B, Q>,
  ): RouteAction<K> => ({ ...(definition as Omit<RouteAction<K>, 'key'>), key });
}

type Missing<R extends readonly RouteDefinition[], A extends readonly RouteAction[]> = Exclude<
  KeyOf<R[number]>,
  A[number]['key']
>;

/** A group: its routes, and its actions by route key. */
export interface DefinedGroup<G extends Group = Group> {
  group: G;
  routes: readonly RouteDefinition<G>[];
  actions: ReadonlyMap<string, RouteAction>;
}

/**
 * A group's actions, one per route of its list: the compiler names any route left without
 * one (`missingActionFor`), and a second action for a key fails at once.
 */
export function defineGroup<
  const R extends readonly RouteDefinition[],
  const A extends readonly RouteAction<KeyOf<R[number]>>[],
>(
  routes: R,
  actions: A & ([Missing<R, A>] extends [never] ? unknown : { missingActionFor: Missing<R, A> }),
): DefinedGroup<R[number]['group']> {
  const [first] = routes;
  if (!first || routes.some((route) => route.group !== first.group)) {
    throw new Error('A group is one or more routes of one group');
  }
  const byKey = new Map<string, RouteAction>();
  for (const action of actions) {
    if (byKey.has(action.key)) throw new Error(`Two actions for ${action.key} in group ${first.group}`);
    byKey.set(action.key, action);
  }
  return { group: first.group, routes, actions: byKey };
}
