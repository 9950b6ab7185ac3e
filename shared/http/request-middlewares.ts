import type { MiddlewareObj, Request } from '@middy/core';
import httpJsonBodyParser from '@middy/http-json-body-parser';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { limits } from '#contract/limits.ts';
import { ForbiddenError, ValidationError } from '#domain/errors.ts';
import { bodyFingerprint, checkIdempotencyKey, type KeptAnswer, startIdempotent } from '#domain/idempotency.ts';
import type { Authenticator, Principal } from '#domain/keys/keys.ts';
import { parse } from '#domain/validation.ts';
import { type RouteDefinition, routeKey } from '#shared/routes.ts';
import type { RouteAction } from './action.ts';
import { bearerToken } from './auth.ts';
import { payloadTooLarge } from './errors.ts';
import { parsePath } from './params.ts';
import type { HttpResult } from './responses.ts';
import type { Router } from './router.ts';

/** What the middlewares learn about a request, for those after them and the action. */
export interface GroupContext extends Context {
  /** API Gateway's id of the request (or Lambda's, or a fresh one): in the answer and its log line. */
  requestId: string;
  startedAt: number;
  route?: RouteDefinition;
  action?: RouteAction;
  principal?: Principal;
  /** Who asked, once a key was accepted: its id and owner, never the key. */
  caller?: { keyId: string; ownerId: string };
  parsedBody?: unknown;
  parsedQuery?: unknown;
  parsedPath?: Record<string, unknown>;
  /** The answer kept for a repeated Idempotency-Key: sent instead of running the action. */
  replayed?: HttpResult;
  /** Set when the request claimed an Idempotency-Key: handed its answer, whatever it is. */
  finishIdempotent?: (answer: KeptAnswer) => Promise<void>;
  /** The content coding the answer may go out in (shared/http/compression.ts), and If-None-Match as sent. */
  coding?: 'br' | 'gzip' | undefined;
  ifNoneMatchSent?: string;
  /** The answer as the action or the error mapping made it, before it is serialized. */
  outcome?: HttpResult;
  /** What went wrong in a 5xx, for the log line. */
  failure?: { name: string; message: string; stack?: string | undefined };
}

export type GroupRequest = Request<APIGatewayProxyEventV2, unknown, Error, GroupContext>;
export type GroupMiddleware = MiddlewareObj<APIGatewayProxyEventV2, unknown, Error, GroupContext>;

/** The body as text, exactly as received; '' when none. */
export const rawBodyOf = ({ body, isBase64Encoded }: APIGatewayProxyEventV2) =>
  body === undefined ? '' : isBase64Encoded ? Buffer.from(body, 'base64').toString('utf8') : body;

/** Finds this group's action for the route key API Gateway (or the local server) matched. */
export function resolveAction(actions: ReadonlyMap<string, RouteAction>, router: Router): GroupMiddleware {
  return {
    before: async (request: GroupRequest) => {
      const { requestContext, rawPath } = request.event;
      // A HEAD route key finds its GET route, and so the GET's action.
      const route = router.find(request.event.routeKey);
      const action = route && actions.get(routeKey(route));
      if (!route || !action) throw router.unmatchedError(requestContext.http.method, rawPath);
      request.context.route = route;
      request.context.action = action;
    },
  };
}

/**
 * 401 for a missing, malformed, unknown or revoked key; then 403 for a read key on a write
 * route, before the body is even looked at.
 */
export function authorize(authenticate: Authenticator): GroupMiddleware {
  return {
    before: async (request: GroupRequest) => {
      const auth = request.context.route?.auth ?? 'public';
      if (auth === 'public') return;
      const principal = await authenticate(bearerToken(request.event.headers?.authorization));
      request.context.caller = { keyId: principal.keyId, ownerId: principal.ownerId };
      if (auth === 'write' && principal.permission !== 'read_write') throw new ForbiddenError();
      request.context.principal = principal;
    },
  };
}

/**
 * `Idempotency-Key` on v1 POSTs (after 401/403, before the body is parsed, so even a 400 is
 * kept and replayed): a repeat of a finished request is answered with the kept answer and
 * `Idempotent-Replayed: true`, which the steps after this one pass through untouched (not
 * middy's early return, which would skip the shared headers, HEAD and the log line); the
 * first one runs, and `finishIdempotency` (shared/http/answer-middlewares.ts) hands its
 * answer to `finishIdempotent` whatever it is.
 */
export function idempotency(runsForMs: number): GroupMiddleware {
  return {
    before: async (request: GroupRequest) => {
      const { route, principal } = request.context;
      if (route?.method !== 'POST' || route.auth === 'public' || !principal) return;
      const header = request.event.headers?.['idempotency-key'];
      if (header === undefined) return;
      const key = checkIdempotencyKey(header);
      const start = await startIdempotent({
        ownerId: principal.ownerId,
        key,
        routeKey: routeKey(route),
        fingerprint: bodyFingerprint(rawBodyOf(request.event)),
        runsForMs,
      });
      if (start.kind === 'replay') {
        const { status, headers, body: kept } = start.answer;
        request.context.replayed = { status, headers: { ...headers, 'idempotent-replayed': 'true' }, body: kept };
        return;
      }
      request.context.finishIdempotent = start.finish;
    },
  };
}

const isMiddyHttpError = (error: unknown): boolean =>
  error instanceof Error && typeof (error as { statusCode?: unknown }).statusCode === 'number';

const JSON_MEDIA_TYPE = /^application\/(?:[^;]+\+)?json\s*(?:;|$)/i;

/**
 * Parses JSON bodies with middy's parser, on routes that declare a body schema. Its own
 * answers (415 for a wrong content type, an empty or malformed body) become our 400; an
 * absent or empty body passes where the route says the body is optional. Parse errors do
 * not echo the body.
 */
export function jsonBody(): GroupMiddleware {
  // Media types are case-insensitive, so the content type is checked here, not by middy's
  // case-sensitive pattern. (The option exists in middy 6's code but not in its typings.)
  const parser = httpJsonBodyParser({ disableContentTypeCheck: true } as Parameters<typeof httpJsonBodyParser>[0]);
  return {
    before: async (request: GroupRequest) => {
      const { action, replayed } = request.context;
      if (!action?.body || replayed) return;
      const { body, isBase64Encoded } = request.event;
      const size = body === undefined ? 0 : Buffer.byteLength(body, isBase64Encoded ? 'base64' : 'utf8');
      if (size > limits.bodyBytesMax) throw payloadTooLarge(limits.bodyBytesMax);
      const text = rawBodyOf(request.event);
      // Only JSON's own whitespace makes a body empty (String#trim would also strip a BOM
      // or a non-breaking space, which are malformed JSON).
      if (/^[ \t\n\r]*$/.test(text)) {
        // An absent optional body takes the defaults; a JSON null is a body, and not an object.
        if (action.optionalBody) {
          request.context.parsedBody = {};
          return;
        }
        throw new ValidationError('Request body is required: send a JSON object with Content-Type: application/json.');
      }
      const contentType = request.event.headers?.['content-type'];
      if (!contentType || !JSON_MEDIA_TYPE.test(contentType)) {
        throw new ValidationError(
          `Content-Type must be application/json${contentType ? ` (got "${contentType.slice(0, 100)}")` : ''}.`,
        );
      }
      try {
        await parser.before?.(request as never);
      } catch (error) {
        if (isMiddyHttpError(error)) throw new ValidationError('Request body is not valid JSON.');
        throw error;
      }
      request.context.parsedBody = request.event.body;
    },
  };
}

/**
 * Validates what the route declares: the body and the query string (400) first, so a bad
 * request is a 400 whatever its path names, then the path parameters (404 for an id that names nothing).
 */
export function validateInput(): GroupMiddleware {
  return {
    before: async (request: GroupRequest) => {
      const { action, replayed } = request.context;
      if (!action || replayed) return;
      if (action.body) request.context.parsedBody = parse(action.body, request.context.parsedBody);
      request.context.parsedQuery = action.query
        ? parse(action.query, request.event.queryStringParameters ?? {}, 'query string')
        : (request.event.queryStringParameters ?? {});
      request.context.parsedPath = parsePath(request.event.pathParameters ?? {});
    },
  };
}
