import * as z from 'zod';
import { limits } from '#contract/limits.ts';
import { slugPattern } from '#domain/projects/slug.ts';
import type { Route } from '#functions/routes.ts';
import type { RouteAction } from '#http/action.ts';
import type { pathParameters } from '#http/params.ts';

// What a route takes, as the OpenAPI document shows it: path, header and query parameters, and
// a request schema as the JSON Schema of what it accepts.

export type JsonSchema = Record<string, unknown>;

/** Every v1 POST takes Idempotency-Key. */
export const isIdempotent = (route: Route) => route.method === 'POST' && route.auth !== 'public';

const numericId = (description: string) => ({
  schema: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER },
  description,
});

/** Every path parameter of params.ts, as the document shows it (a new name must be added here). */
const pathParameterDocs: Record<keyof ReturnType<typeof pathParameters>, { schema: JsonSchema; description: string }> =
  {
    slug: {
      schema: { type: 'string', pattern: slugPattern.source, maxLength: limits.slugMax },
      description: "The project's slug.",
    },
    shareId: { schema: { type: 'string' }, description: "The project's public share id." },
    planId: numericId("The plan's id; one that names no plan of the project is 404."),
    featureId: numericId("The feature's id; one that names no feature of the project is 404."),
    customerId: {
      schema: { type: 'string' },
      description: "Your own id for the customer (the widget's customer-id); an unknown one is not an error.",
    },
    endpointId: numericId("The webhook endpoint's id; one that names no endpoint of the project is 404."),
    experimentId: numericId("The experiment's id; one that names no experiment of the project is 404."),
    deliveryId: {
      schema: { type: 'string' },
      description: "The delivery's id (`dlv_…`), from the endpoint's deliveries; an unknown one is 404.",
    },
  };

export const jsonSchemaOptions = { target: 'draft-2020-12', unrepresentable: 'any' } as const;

export function withoutDialect(schema: JsonSchema): JsonSchema {
  const { $schema: _dialect, $id: _id, ...rest } = schema;
  return rest;
}

/** A request schema (body or query) as the JSON Schema of what it accepts. */
export const inputSchema = (schema: () => z.ZodType): JsonSchema =>
  withoutDialect(z.toJSONSchema(schema(), { ...jsonSchemaOptions, io: 'input' }) as JsonSchema);

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

export function parameters(route: Route, action: RouteAction): JsonSchema[] {
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
