import type { Route } from '#functions/routes.ts';
import type { RouteAction } from '#http/action.ts';
import { statusByCode } from '#http/errors.ts';
import { isIdempotent, type JsonSchema } from './inputs.ts';

// The error answers the OpenAPI document shows: which codes a route can answer, and one shared
// response per set of codes a status carries.

const errorTitles: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  412: 'Precondition Failed',
  413: 'Payload Too Large',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
};

/** Headers some error answers carry, by code. */
const errorHeaders: Record<string, Record<string, JsonSchema>> = {
  rate_limited: { 'Retry-After': { description: 'Seconds to wait before retrying.', schema: { type: 'integer' } } },
  unavailable: {
    'Retry-After': {
      description: 'Seconds to wait before sending the same request again.',
      schema: { type: 'integer' },
    },
  },
};

const errorMessages: Record<string, string> = {
  validation_error: 'name: is required',
  unauthorized: 'A valid API key is required: send "Authorization: Bearer <key>".',
  forbidden: 'This API key is read-only; this endpoint needs a read_write key.',
  not_found: 'Project "acme" not found.',
  conflict: 'A project with slug "acme" already exists.',
  precondition_failed:
    'If-Match names a version this resource no longer has: GET it again, redo the change, and send its current ETag.',
  limit_exceeded: 'A project holds at most 25 plans; delete one before adding another.',
  payload_too_large: 'Request body is larger than 256 KiB.',
  payments_not_configured: 'This pricing page cannot take payments yet.',
  payment_provider_error: 'The payment provider failed: ...',
  unavailable:
    'The table could not take this request in time (concurrent writes of the same data, or over its throughput); nothing was changed: send the same request again.',
  internal_error: 'Internal error. If it persists, report request id 3f1c....',
};

/** The codes a route can answer, from its shape (auth, body, query, path) and its declaration. */
export function errorCodesOf(route: Route, action: RouteAction): string[] {
  const codes = new Set<string>();
  if (route.auth !== 'public') codes.add('unauthorized');
  if (route.auth === 'write') codes.add('forbidden');
  if (action.body || action.query) codes.add('validation_error');
  if (action.body) codes.add('payload_too_large');
  // A preflight parses nothing; every other route with a path parameter can name nothing.
  if (route.path.includes('{') && route.method !== 'OPTIONS') codes.add('not_found');
  // Every v1 POST takes Idempotency-Key: a malformed key is a 400, a key in use a 409.
  if (isIdempotent(route)) codes.add('validation_error').add('conflict');
  for (const code of action.doc?.errors ?? []) codes.add(code);
  // A PUT or DELETE that takes If-Match re-reads and retries when its resource changes under
  // it, and answers 409 when it never settles (shared/domain/versions.ts untilWritten).
  if (action.doc?.etag === 'write') codes.add('conflict').add('precondition_failed');
  // Whatever reaches the table: a write whose transaction keeps conflicting with concurrent
  // writes of the same items, or a request DynamoDB throttles, is a 503 with Retry-After
  // that changed nothing a resend would apply twice.
  if (route.method !== 'OPTIONS' && (route.auth !== 'public' || route.path.startsWith('/api/'))) {
    codes.add('unavailable');
  }
  codes.add('internal_error');
  return [...codes];
}

const statusOfCode = (code: string): number => (statusByCode as Record<string, number>)[code] ?? 500;

export const requestIdHeader = { 'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' } };

/**
 * The error answers of a route, by status: each a shared response of components.responses
 * (one per set of codes a status can carry), so the document states each set once.
 */
export function errorResponses(codes: string[], shared: Record<string, JsonSchema>): Record<string, JsonSchema> {
  const byStatus = new Map<number, string[]>();
  for (const code of codes) byStatus.set(statusOfCode(code), [...(byStatus.get(statusOfCode(code)) ?? []), code]);
  const responses: Record<string, JsonSchema> = {};
  for (const [status, statusCodes] of [...byStatus].sort(([a], [b]) => a - b)) {
    const name = statusCodes.join('_or_');
    shared[name] ??= {
      description: `${errorTitles[status] ?? 'Error'}: ${statusCodes.map((code) => `\`${code}\``).join(', ')}`,
      headers: Object.assign({ ...requestIdHeader }, ...statusCodes.map((code) => errorHeaders[code] ?? {})),
      content: {
        'application/json': {
          schema: { $ref: '#/components/schemas/Error' },
          examples: Object.fromEntries(
            statusCodes.map((code) => [
              code,
              { value: { error: { code, message: errorMessages[code] ?? code.replaceAll('_', ' ') } } },
            ]),
          ),
        },
      },
    };
    responses[String(status)] = { $ref: `#/components/responses/${name}` };
  }
  return responses;
}
