import { randomUUID } from 'node:crypto';
import middy, { type MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { type App, compose, type PortBuilders } from '#shared/composition.ts';
import { runtimeConfig } from '#shared/config.ts';
import { groupSpecs } from '#shared/groups.ts';
import { log } from '#shared/logger.ts';
import { runInRequestContext } from '#shared/request-context.ts';
import type { Group, Route } from '#shared/routes.ts';
import type { DefinedGroup, GroupPorts } from './action.ts';
import { errorResult, internalErrorResult } from './errors.ts';
import { authorize, type GroupContext, idempotency, jsonBody, resolveAction, validateInput } from './middlewares.ts';
import { projectKey } from './params.ts';
import { type HttpResult, type LambdaResult, toLambdaResult } from './responses.ts';
import { createRouter, type Router } from './router.ts';

/** A claimed Idempotency-Key counts as abandoned this long after its function's timeout. */
const IDEMPOTENCY_MARGIN_SECONDS = 5;

export type LambdaHandler = (event: APIGatewayProxyEventV2, context: Context) => Promise<LambdaResult>;

const publicHeaders = {
  'access-control-allow-origin': '*',
  // Retry-After is not CORS-safelisted: exposed so the widget can read a 429's wait.
  'access-control-expose-headers': 'ETag, X-Request-Id, Retry-After',
};

/**
 * What every answer carries, whoever made it (an action, an error, the local server's early
 * 413): its request id and `nosniff`; then, by the route and never by the raw path (which may
 * hold a stage or a base path), CORS on public routes, and `no-store` on all others unless the
 * answer chose its own caching.
 */
export function withSharedHeaders(
  event: APIGatewayProxyEventV2,
  outcome: HttpResult,
  requestId: string,
  router: Router,
): LambdaResult {
  const response = toLambdaResult(outcome);
  const { headers } = response;
  headers['x-request-id'] = requestId;
  headers['x-content-type-options'] = 'nosniff';
  if (router.isPublicRequest(event.routeKey, event.rawPath)) Object.assign(headers, publicHeaders);
  else headers['cache-control'] ??= 'no-store';
  return response;
}

/**
 * A HEAD's answer: its GET's (the same status and headers, 304 included), without the body,
 * and with the Content-Length that body would have had (RFC 9110 9.3.2, 8.6). Errors too: a
 * HEAD of an unknown share is a 404 with no body, of a POST-only path a 405 with its Allow.
 */
export function headOf({ body, isBase64Encoded, ...response }: LambdaResult): LambdaResult {
  if (body === undefined) return response;
  const length = Buffer.byteLength(body, isBase64Encoded ? 'base64' : 'utf8');
  return { ...response, headers: { ...response.headers, 'content-length': String(length) } };
}

const rawBodyOf = ({ body, isBase64Encoded }: APIGatewayProxyEventV2) =>
  body === undefined ? '' : isBase64Encoded ? Buffer.from(body, 'base64').toString('utf8') : body;

function errorResponder(): MiddlewareObj<APIGatewayProxyEventV2, unknown, Error, GroupContext> {
  return {
    onError: async (request) => {
      const result = errorResult(request.error);
      if (result) request.response = result;
    },
  };
}

/**
 * One Lambda handler per endpoint group: a middy pipeline (route → auth → JSON body →
 * declared schemas → action → error mapping) inside a thin wrapper that owns what every
 * response shares: its headers (withSharedHeaders), the one log line, and
 * the last word on anything unexpected (a 500 that names the request id and exposes
 * nothing else).
 *
 * `routes`: what it routes by, the whole table (shared/routes.ts) for the local server and
 * the `$default` fallback function, or its group's slice (shared/route-slices.ts) for a
 * group's own function, which API Gateway sends its own routes only. A slice without one of
 * the group's routes fails here, at the cold start.
 */
export function createGroupHandler<G extends Group>(
  { group, actions }: DefinedGroup<G>,
  app: App<GroupPorts<G>>,
  routes: readonly Route[],
): LambdaHandler {
  const router = createRouter(routes);
  for (const key of actions.keys()) if (!router.find(key)) throw new Error(`${group}: no route ${key} to serve`);
  const pipeline = middy<APIGatewayProxyEventV2, HttpResult, Error, GroupContext>({ timeoutEarlyInMillis: 0 })
    .use(errorResponder())
    .use(resolveAction(actions, router))
    .use(authorize(app.authenticate))
    .use(idempotency((groupSpecs[group].timeoutSeconds + IDEMPOTENCY_MARGIN_SECONDS) * 1000))
    .use(jsonBody())
    .use(validateInput())
    .handler(async (event, context) => {
      const action = context.action;
      if (!action) throw new Error('No action resolved');
      return action.run({
        principal: context.principal,
        path: context.parsedPath,
        project: projectKey(context.principal, context.parsedPath ?? {}),
        query: context.parsedQuery,
        headers: event.headers ?? {},
        body: context.parsedBody,
        rawBody: rawBodyOf(event),
        ports: app.ports,
        config: app.config,
      });
    });

  return async (event, context) => {
    const started = performance.now();
    const requestId = event.requestContext?.requestId || context.awsRequestId || randomUUID();
    const { context: scope, result } = runInRequestContext(() => pipeline(event, context as GroupContext));
    let outcome: HttpResult;
    try {
      outcome = await result;
    } catch (error) {
      outcome = internalErrorResult(requestId);
      const failure = error instanceof Error ? error : new Error(String(error));
      scope.failure = { name: failure.name, message: failure.message, stack: failure.stack };
    }
    // A 502 is the payment provider failing, not a bug: its code and (scrubbed) message
    // belong in the log line so an operator can see why without a stack.
    if (!scope.failure && outcome.status >= 500) {
      const { error } = (outcome.body ?? {}) as { error?: { code?: string; message?: string } };
      if (error) scope.failure = { name: error.code ?? 'error', message: error.message ?? '' };
    }
    if (scope.finishIdempotent) {
      try {
        await scope.finishIdempotent({ status: outcome.status, headers: outcome.headers, body: outcome.body });
      } catch (error) {
        // The answer stands; the key stays claimed until its lock runs out, then a retry runs again.
        log({ level: 'error', msg: 'idempotency: could not keep the answer', requestId, error: String(error) });
      }
    }
    const shared = withSharedHeaders(event, outcome, requestId, router);
    const response = event.requestContext?.http?.method === 'HEAD' ? headOf(shared) : shared;

    log({
      level: response.statusCode >= 500 ? 'error' : 'info',
      msg: 'request',
      requestId,
      // Lambda's own id too: it joins this line to the platform's START/REPORT lines.
      ...(context.awsRequestId ? { awsRequestId: context.awsRequestId } : {}),
      group,
      method: event.requestContext?.http?.method,
      route: event.routeKey,
      status: response.statusCode,
      durationMs: Math.round((performance.now() - started) * 10) / 10,
      dynamoRequests: scope.dynamoRequests,
      ...(scope.caller ?? {}),
      ...(response.statusCode >= 400 ? { errorCode: errorCodeOf(outcome) } : {}),
      // The path only where no route matched: a matched route's template says where it went.
      ...(router.find(event.routeKey) ? {} : { path: shortened(event.rawPath) }),
      ...(scope.failure ? { error: scope.failure } : {}),
    });
    return response;
  };
}

const errorCodeOf = (outcome: HttpResult): string | undefined =>
  ((outcome.body ?? {}) as { error?: { code?: string } }).error?.code;

const shortened = (path: string | undefined) =>
  path === undefined || path.length <= 200 ? path : `${path.slice(0, 200)}…`;

/**
 * A group's Lambda entry: composed at init from the environment with the ports its actions
 * use, so a misconfigured stage fails its cold start with one clear line instead of
 * answering 500 to every request.
 */
export function lambdaHandler<G extends Group>(
  defined: DefinedGroup<G>,
  builders: PortBuilders<GroupPorts<G>>,
  routes: readonly Route[],
): LambdaHandler {
  return createGroupHandler(defined, compose(runtimeConfig(), builders), routes);
}
