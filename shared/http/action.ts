import type { Principal } from '#domain/keys/keys.ts';
import type { Group, GroupRouteKey, PathParams, RouteOf } from '#shared/routes.ts';
import type { HttpResult } from './responses.ts';

/** Whether a route reads a JSON body; routes without one ignore any body sent. */
export type BodyMode = 'required' | 'optional';

/** What an action sees: everything parsed, and the principal when the route needs a key. */
export interface ActionRequest<K extends string, Auth> {
  principal: Auth extends 'public' ? undefined : Principal;
  path: K extends `${string} ${infer P}` ? PathParams<P> : never;
  query: Record<string, string | undefined>;
  headers: Record<string, string | undefined>;
  body: unknown;
}

export interface Action<K extends string, Auth> {
  body?: BodyMode;
  run(request: ActionRequest<K, Auth>): Promise<HttpResult>;
}

/** An action with its route-specific types erased, as the pipeline handles it. */
export type AnyAction = Action<string, unknown>;

/** Every route of the group must have an action; TypeScript says which one is missing. */
export type GroupActions<G extends Group> = {
  [K in GroupRouteKey<G>]: Action<K, RouteOf<K>['auth']>;
};
