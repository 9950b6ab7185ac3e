import middy from '@middy/core';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { type App, compose, type PortBuilders } from '#shared/composition.ts';
import { runtimeConfig } from '#shared/config.ts';
import { groupSpecs } from '#shared/function-specs.ts';
import { runInRequestContext } from '#shared/request-context.ts';
import type { Group, RouteDefinition } from '#shared/routes.ts';
import type { DefinedGroup, GroupPorts } from './action.ts';
import {
  errorMapping,
  finishIdempotency,
  headWithoutBody,
  internalError,
  lambdaAnswer,
  requestId,
  requestLog,
  sharedHeaders,
} from './answer-middlewares.ts';
import { clientAddressOf } from './client-address.ts';
import { contentCoding } from './compression.ts';
import { projectKey } from './params.ts';
import {
  authorize,
  type GroupContext,
  idempotency,
  jsonBody,
  rawBodyOf,
  resolveAction,
  validateInput,
} from './request-middlewares.ts';
import type { LambdaResult } from './responses.ts';
import { createRouter } from './router.ts';

/** A claimed Idempotency-Key counts as abandoned this long after its function's timeout. */
const IDEMPOTENCY_MARGIN_SECONDS = 5;

export type LambdaHandler = (event: APIGatewayProxyEventV2, context: Context) => Promise<LambdaResult>;

/**
 * One Lambda handler per endpoint group: one middy pipeline. Its `before` steps run in the
 * order used (request id → Accept-Encoding and the coded ETags of the conditional headers →
 * route → auth → Idempotency-Key → JSON body → declared schemas), then the action; its
 * `after`/`onError` steps in the reverse order (error mapping → the 500 fallback → the
 * idempotency finish → serialization → shared headers → content coding → HEAD → the log line).
 *
 * `routes`: what it routes by, its group's own (functions/<group>/routes.ts), which API
 * Gateway sends it, or the whole table (functions/routes.ts) for the local server and the
 * `$default` fallback function. Routes without one of the group's actions fail here, at the
 * cold start.
 */
export function createGroupHandler<G extends Group>(
  { group, actions, routes: own }: DefinedGroup<G>,
  app: App<GroupPorts<G>>,
  routes: readonly RouteDefinition[] = own,
): LambdaHandler {
  const router = createRouter(routes);
  for (const key of actions.keys()) if (!router.find(key)) throw new Error(`${group}: no route ${key} to serve`);
  const pipeline = middy<APIGatewayProxyEventV2, unknown, Error, GroupContext>({ timeoutEarlyInMillis: 0 })
    .use(requestId())
    .use(requestLog(group, router))
    .use(headWithoutBody())
    .use(contentCoding())
    .use(sharedHeaders(router))
    .use(lambdaAnswer())
    .use(finishIdempotency())
    .use(internalError())
    .use(errorMapping())
    .use(resolveAction(actions, router))
    .use(authorize(app.authenticate))
    .use(idempotency((groupSpecs[group].timeoutSeconds + IDEMPOTENCY_MARGIN_SECONDS) * 1000))
    .use(jsonBody())
    .use(validateInput())
    .handler(async (event, context) => {
      if (context.replayed) return context.replayed;
      const action = context.action;
      if (!action) throw new Error('No action resolved');
      return action.run({
        principal: context.principal,
        path: context.parsedPath,
        project: projectKey(context.principal, context.parsedPath ?? {}),
        query: context.parsedQuery,
        headers: event.headers ?? {},
        clientAddress: clientAddressOf(event, app.config),
        body: context.parsedBody,
        rawBody: rawBodyOf(event),
        ports: app.ports,
        config: app.config,
      });
    });
  // The request's scope opens around the pipeline, not in it: a middleware cannot wrap the
  // steps after it, and the DynamoDB calls of every step count toward the request.
  return (event, context) =>
    runInRequestContext(() => pipeline(event, context as GroupContext)) as Promise<LambdaResult>;
}

/**
 * A group's Lambda entry: composed at init from the environment with the ports its actions
 * use, so a misconfigured stage fails its cold start with one clear line instead of
 * answering 500 to every request. It routes by its group's own routes unless given others.
 */
export function lambdaHandler<G extends Group>(
  defined: DefinedGroup<G>,
  builders: PortBuilders<GroupPorts<G>>,
  routes?: readonly RouteDefinition[],
): LambdaHandler {
  return createGroupHandler(defined, compose(runtimeConfig(), builders), routes);
}
