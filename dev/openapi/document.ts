import * as z from 'zod';
import { limits } from '#contract/limits.ts';
import { ChangeView } from '#domain/changes.ts';
import { CustomerView, EntitlementsView, EntitlementView, SubscriptionView } from '#domain/customers/schemas.ts';
import { FeatureView } from '#domain/features/schemas.ts';
import { CheckoutView, ReceiptView } from '#domain/payments/schemas.ts';
import { AddPlanFeaturesView, PlanFeatureDetailView, PlanFeatureView, PlanView } from '#domain/plans/schemas.ts';
import { ProjectSummaryView, ProjectView } from '#domain/projects/schemas.ts';
import { slugPattern } from '#domain/projects/slug.ts';
import { Theme } from '#domain/projects/theme.ts';
import { ShareView } from '#domain/share/schemas.ts';
import { type Route, routes } from '#functions/routes.ts';
import type { DefinedGroup, OtherResponse, RouteAction, RouteDoc } from '#http/action.ts';
import { ErrorBody, statusByCode } from '#http/errors.ts';
import type { pathParameters } from '#http/params.ts';
import { SuccessView } from '#http/responses.ts';
import { type Group, routeKey } from '#shared/routes.ts';
import { examples } from './examples.ts';

/**
 * The OpenAPI 3.1 document, built from the route table and each route's declaration: the
 * very zod schemas that validate requests (as JSON Schema of their input) and the response
 * schemas the route declares (as JSON Schema of their output). Run by `npm run openapi`
 * and by the test that keeps docs/openapi.json identical; never by a deployed function.
 */

export type JsonSchema = Record<string, unknown>;
export type OpenApiDocument = Record<string, unknown> & { paths: Record<string, Record<string, JsonSchema>> };

/** Named schemas, shown once under components.schemas and referenced everywhere else. */
const components = {
  Project: ProjectView,
  ProjectSummary: ProjectSummaryView,
  Feature: FeatureView,
  Plan: PlanView,
  PlanFeature: PlanFeatureView,
  PlanFeatureDetail: PlanFeatureDetailView,
  AddPlanFeaturesResult: AddPlanFeaturesView,
  Theme,
  ShareView,
  Checkout: CheckoutView,
  Receipt: ReceiptView,
  Customer: CustomerView,
  Subscription: SubscriptionView,
  Entitlements: EntitlementsView,
  Entitlement: EntitlementView,
  Change: ChangeView,
  Success: SuccessView,
  Error: ErrorBody,
} satisfies Record<string, z.ZodType>;

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** Every path parameter of params.ts, as the document shows it (a new name must be added here). */
const pathParameterDocs: Record<keyof typeof pathParameters, { schema: JsonSchema; description: string }> = {
  slug: {
    schema: { type: 'string', pattern: slugPattern.source, maxLength: limits.slugMax },
    description: "The project's slug.",
  },
  shareId: { schema: { type: 'string' }, description: "The project's public share id." },
  planId: {
    schema: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER },
    description: "The plan's id; one that names no plan of the project is 404.",
  },
  featureId: {
    schema: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER },
    description: "The feature's id; one that names no feature of the project is 404.",
  },
  customerId: {
    schema: { type: 'string' },
    description: "Your own id for the customer (the widget's customer-id); an unknown one is not an error.",
  },
};

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

const jsonSchemaOptions = { target: 'draft-2020-12', unrepresentable: 'any' } as const;

function withoutDialect(schema: JsonSchema): JsonSchema {
  const { $schema: _dialect, $id: _id, ...rest } = schema;
  return rest;
}

/** A request schema (body or query) as the JSON Schema of what it accepts. */
const inputSchema = (schema: z.ZodType): JsonSchema =>
  withoutDialect(z.toJSONSchema(schema, { ...jsonSchemaOptions, io: 'input' }) as JsonSchema);

/**
 * Response schemas as the JSON Schema of what they produce, in one pass with the named
 * components, so a component nested in a route's answer becomes a $ref.
 */
function outputSchemas(actions: RouteAction[]): {
  named: Record<string, JsonSchema>;
  byAction: Map<z.ZodType, string>;
} {
  const registry = z.registry<{ id: string }>();
  const byAction = new Map<z.ZodType, string>();
  for (const [id, schema] of Object.entries(components)) {
    registry.add(schema, { id });
    byAction.set(schema, id);
  }
  let anonymous = 0;
  for (const action of actions) {
    for (const response of Object.values(action.doc?.responses ?? {})) {
      if (!(response instanceof z.ZodType) || byAction.has(response)) continue;
      const id = `__response${anonymous++}`;
      registry.add(response, { id });
      byAction.set(response, id);
    }
  }
  const { schemas } = z.toJSONSchema(registry, {
    ...jsonSchemaOptions,
    io: 'output',
    uri: (id) => `#/components/schemas/${id}`,
  }) as { schemas: Record<string, JsonSchema> };
  const named = Object.fromEntries(Object.entries(schemas).map(([id, schema]) => [id, withoutDialect(schema)]));
  return { named, byAction };
}

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

const requestIdHeader = { 'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' } };
const etagHeader = { ETag: { $ref: '#/components/headers/ETag' } };

/**
 * The error answers of a route, by status: each a shared response of components.responses
 * (one per set of codes a status can carry), so the document states each set once.
 */
function errorResponses(codes: string[], shared: Record<string, JsonSchema>): Record<string, JsonSchema> {
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
          schema: ref('Error'),
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

function successResponse(
  status: string,
  response: z.ZodType | OtherResponse,
  named: Map<z.ZodType, string>,
  schemas: Record<string, JsonSchema>,
  example: unknown,
  tagged: boolean,
): JsonSchema {
  if (!(response instanceof z.ZodType)) {
    const content = response.contentType ? { content: { [response.contentType]: {} } } : {};
    return { description: response.description, headers: requestIdHeader, ...content };
  }
  const id = named.get(response) ?? '';
  const schema = id.startsWith('__') ? schemas[id] : ref(id);
  const examples = example === undefined ? {} : { example };
  return {
    description: status === '201' ? 'Created' : 'OK',
    headers: tagged ? { ...requestIdHeader, ...etagHeader } : requestIdHeader,
    content: { 'application/json': { schema, ...examples } },
  };
}

const isIdempotent = (route: Route) => route.method === 'POST' && route.auth !== 'public';

const idempotencyKeyHeader = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'Makes a retry safe: the first answer is kept 24 h and replayed (with Idempotent-Replayed: true) to the same key and body; another body, another route or a first request still running is 409.',
  schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7E]+$' },
};

const conditionalHeaders = {
  read: {
    name: 'If-None-Match',
    in: 'header',
    required: false,
    description: 'The ETag of an earlier answer (or several, or *): 304 with no body while it is still current.',
    schema: { type: 'string' },
  },
  write: {
    name: 'If-Match',
    in: 'header',
    required: false,
    description:
      'The ETag of the resource as last read (or several, or *): the write happens only while the resource still has it, else 412 `precondition_failed` and nothing changes.',
    schema: { type: 'string' },
  },
};

function parameters(route: Route, action: RouteAction): JsonSchema[] {
  const inPath = [...route.path.matchAll(/\{(\w+)\}/g)].map(([, name]) => {
    const param = pathParameterDocs[name as keyof typeof pathParameterDocs];
    return { name, in: 'path', required: true, description: param.description, schema: param.schema };
  });
  if (isIdempotent(route)) inPath.push(idempotencyKeyHeader as (typeof inPath)[number]);
  const etag = action.doc?.etag;
  if (etag === 'read' || etag === 'write') inPath.push(conditionalHeaders[etag] as (typeof inPath)[number]);
  const query = action.query ?? action.doc?.query;
  if (!query) return inPath;
  const schema = inputSchema(query) as { properties?: Record<string, JsonSchema>; required?: string[] };
  const inQuery = Object.entries(schema.properties ?? {}).map(([name, property]) => {
    const { description, ...rest } = property;
    return {
      name,
      in: 'query',
      required: schema.required?.includes(name) ?? false,
      ...(description ? { description } : {}),
      schema: rest,
    };
  });
  return [...inPath, ...inQuery];
}

function operation(
  route: Route,
  action: RouteAction,
  doc: RouteDoc,
  output: ReturnType<typeof outputSchemas>,
  sharedResponses: Record<string, JsonSchema>,
): JsonSchema {
  const example = examples[doc.operationId];
  const params = parameters(route, action);
  const body = doc.body ?? action.body;
  const responses: Record<string, JsonSchema> = {};
  for (const [status, response] of Object.entries(doc.responses)) {
    const tagged = doc.etag !== undefined && (doc.etag !== 'write' || route.method === 'PUT');
    responses[status] = successResponse(status, response, output.byAction, output.named, example?.response, tagged);
  }
  if (doc.etag === 'read') {
    responses['304'] = {
      description: 'Not Modified: If-None-Match names the current ETag. No body.',
      headers: { ...requestIdHeader, ...etagHeader },
    };
  }
  Object.assign(responses, errorResponses(errorCodesOf(route, action), sharedResponses));
  return {
    operationId: doc.operationId,
    summary: doc.summary,
    ...(doc.description ? { description: doc.description } : {}),
    tags: [route.group],
    security: route.auth === 'public' ? [] : [{ bearer: [] }],
    ...(params.length > 0 ? { parameters: params } : {}),
    ...(body
      ? {
          requestBody: {
            required: !action.optionalBody,
            content: {
              'application/json': {
                schema: inputSchema(body),
                ...(example?.request === undefined ? {} : { example: example.request }),
              },
            },
          },
        }
      : {}),
    responses,
  };
}

const description = `Pricing-plan service: API v1 (a Bearer key; a \`read\` key may only GET), the public share
endpoint the widget reads, and checkout and receipts through each project's own Stripe account.

Every error is JSON \`{"error":{"code","message","details"?}}\` (\`details\` for validation only), and every
answer carries \`X-Request-Id\`. Checks run in this order: 401 (key), 403 (a read key on a write), 400 (body,
then query), 404 (project, plan, feature), then 412 (a stale \`If-Match\`). A path that exists with another method is 405
\`method_not_allowed\` with an \`Allow\` header; a path that does not exist is 404 \`not_found\`. Request
bodies are JSON objects of at most 256 KiB (413 \`payload_too_large\` past that). Every GET also answers HEAD
with the same key, status and headers (\`ETag\`, \`Cache-Control\`, \`Content-Length\`; 304 to a current
\`If-None-Match\`) and no body; HEAD is not listed per operation.`;

/** Every route's action, in route-table order; throws naming each route without a declaration or a documentation. */
export function documentedActions(
  groups: Record<Group, DefinedGroup>,
): { route: Route; action: RouteAction; doc: RouteDoc }[] {
  const missing: string[] = [];
  const found = routes.flatMap((route) => {
    const action = groups[route.group].actions.get(routeKey(route));
    if (!action?.doc || Object.keys(action.doc.responses).length === 0) {
      missing.push(routeKey(route));
      return [];
    }
    return [{ route: route as Route, action, doc: action.doc }];
  });
  if (missing.length > 0) {
    throw new Error(`Routes without documented responses (add \`doc\` to their route()): ${missing.join('; ')}`);
  }
  return found;
}

export function buildDocument(groups: Record<Group, DefinedGroup>, version: string): OpenApiDocument {
  const documented = documentedActions(groups);
  const output = outputSchemas(documented.map(({ action }) => action));
  const paths: OpenApiDocument['paths'] = {};
  const responses: Record<string, JsonSchema> = {};
  for (const { route, action, doc } of documented) {
    paths[route.path] ??= {};
    (paths[route.path] as Record<string, JsonSchema>)[route.method.toLowerCase()] = operation(
      route,
      action,
      doc,
      output,
      responses,
    );
  }
  const schemas = Object.fromEntries(Object.entries(output.named).filter(([id]) => !id.startsWith('__')));
  return {
    openapi: '3.1.0',
    info: { title: 'Pricing plan service', version, description },
    servers: [{ url: 'http://127.0.0.1:3000', description: 'npm start' }],
    tags: Object.keys(groups).map((name) => ({ name })),
    paths,
    components: {
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description: 'An API key, `ppk_<id>_<secret>` (`npm run cli -- keys create`).',
        },
      },
      headers: {
        'X-Request-Id': {
          description: "The request id, also in the log line and in a 500's message.",
          schema: { type: 'string' },
        },
        ETag: {
          description:
            'The version of what the answer returns (one resource, or a list): a strong tag for If-Match on its PUT and DELETE, and If-None-Match on its GET.',
          schema: { type: 'string' },
        },
      },
      schemas,
      responses: Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b))),
    },
  };
}
