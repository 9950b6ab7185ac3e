import * as z from 'zod';
import { ChangeView } from '#domain/changes.ts';
import { CustomerView, EntitlementsView, EntitlementView, SubscriptionView } from '#domain/customers/schemas.ts';
import { ExperimentView } from '#domain/experiments/schemas.ts';
import { FeatureView } from '#domain/features/schemas.ts';
import { CheckoutView, ReceiptView } from '#domain/payments/schemas.ts';
import { AddPlanFeaturesView, PlanFeatureDetailView, PlanFeatureView, PlanView } from '#domain/plans/schemas.ts';
import { ProjectSummaryView, ProjectView } from '#domain/projects/schemas.ts';
import { Theme } from '#domain/projects/theme.ts';
import { ShareView } from '#domain/share/schemas.ts';
import { type Route, routes } from '#functions/routes.ts';
import type { DefinedGroup, OtherResponse, RouteAction, RouteDoc } from '#http/action.ts';
import { ErrorBody } from '#http/errors.ts';
import { SuccessView } from '#http/responses.ts';
import { type Group, routeKey } from '#shared/routes.ts';
import { errorCodesOf, errorResponses, requestIdHeader } from './errors.ts';
import { examples } from './examples.ts';
import { inputSchema, type JsonSchema, jsonSchemaOptions, parameters, withoutDialect } from './inputs.ts';

/**
 * The OpenAPI 3.1 document, built from the route table and each route's declaration: the
 * very zod schemas that validate requests (as JSON Schema of their input) and the response
 * schemas the route declares (as JSON Schema of their output). Run by `npm run openapi`
 * and by the test that keeps docs/openapi.json identical; never by a deployed function.
 */

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
  Experiment: ExperimentView,
  Success: SuccessView,
  Error: ErrorBody,
} satisfies Record<string, () => z.ZodType>;

/**
 * A route's answer schema, built once for the whole document: a route may declare it as a
 * function that builds a new schema at each call, and the generator finds it by identity.
 */
const built = new Map<() => z.ZodType, z.ZodType>();
const answerSchema = (answer: () => z.ZodType): z.ZodType => {
  const schema = built.get(answer) ?? answer();
  built.set(answer, schema);
  return schema;
};

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/**
 * Response schemas as the JSON Schema of what they produce, in one pass with the named
 * components, so a component nested in a route's answer becomes a $ref.
 */
function outputSchemas(actions: RouteAction[]) {
  const registry = z.registry<{ id: string }>();
  const byAction = new Map<z.ZodType, string>();
  for (const [id, build] of Object.entries(components)) {
    const schema = build();
    registry.add(schema, { id });
    byAction.set(schema, id);
  }
  let anonymous = 0;
  for (const action of actions) {
    for (const answer of Object.values(action.doc?.responses ?? {})) {
      if (typeof answer !== 'function') continue;
      const response = answerSchema(answer);
      if (byAction.has(response)) continue;
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

const etagHeader = { ETag: { $ref: '#/components/headers/ETag' } };

function successResponse(
  status: string,
  answer: (() => z.ZodType) | OtherResponse,
  named: Map<z.ZodType, string>,
  schemas: Record<string, JsonSchema>,
  example: unknown,
  tagged: boolean,
): JsonSchema {
  if (typeof answer !== 'function') {
    const content = answer.contentType ? { content: { [answer.contentType]: {} } } : {};
    return { description: answer.description, headers: requestIdHeader, ...content };
  }
  const id = named.get(answerSchema(answer)) ?? '';
  const schema = id.startsWith('__') ? schemas[id] : ref(id);
  const examples = example === undefined ? {} : { example };
  return {
    description: status === '201' ? 'Created' : 'OK',
    headers: tagged ? { ...requestIdHeader, ...etagHeader } : requestIdHeader,
    content: { 'application/json': { schema, ...examples } },
  };
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
export function documentedActions(groups: Record<Group, DefinedGroup>) {
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
    const item = paths[route.path] ?? {};
    item[route.method.toLowerCase()] = operation(route, action, doc, output, responses);
    paths[route.path] = item;
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
