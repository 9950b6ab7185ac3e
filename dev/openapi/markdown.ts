import type { OpenApiDocument } from './document.ts';
import type { JsonSchema } from './inputs.ts';

/**
 * docs/api.md: every route and field, rendered from the OpenAPI document alone, so the
 * reference says exactly what the document says (and the document what the code validates).
 */

interface Row {
  name: string;
  type: string;
  required: boolean;
  notes: string;
}

const cell = (text: string) => text.replaceAll('|', '\\|').replaceAll('\n', ' ');
/** GitHub's heading anchors: lower case, punctuation dropped, spaces as hyphens. */
const anchor = (heading: string) =>
  heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replaceAll(' ', '-');
const refName = (ref: string) => ref.slice(ref.lastIndexOf('/') + 1);

function typeOf(schema: JsonSchema): string {
  if (typeof schema.$ref === 'string') return `[${refName(schema.$ref)}](#${anchor(refName(schema.$ref))})`;
  if (Array.isArray(schema.anyOf)) return (schema.anyOf as JsonSchema[]).map(typeOf).join(' or ');
  if ('const' in schema) return JSON.stringify(schema.const);
  if (Array.isArray(schema.enum)) return schema.enum.map((value) => JSON.stringify(value)).join(' | ');
  const types = Array.isArray(schema.type) ? (schema.type as string[]) : schema.type ? [schema.type as string] : [];
  if (types.length === 0) return 'any';
  return types
    .map((type) => {
      if (type === 'array') return `${typeOf((schema.items as JsonSchema | undefined) ?? {})}[]`;
      if (type === 'object' && schema.additionalProperties && typeof schema.additionalProperties === 'object') {
        return `map of ${typeOf(schema.additionalProperties as JsonSchema)}`;
      }
      return type;
    })
    .join(' or ');
}

function notesOf(schema: JsonSchema): string {
  const notes: string[] = [];
  if (typeof schema.description === 'string') notes.push(schema.description.replace(/\.$/, ''));
  if (schema.minLength === 1) notes.push('not empty');
  else if (schema.minLength !== undefined) notes.push(`at least ${schema.minLength} characters`);
  if (schema.maxLength !== undefined) notes.push(`at most ${schema.maxLength} characters`);
  if (schema.minimum !== undefined) notes.push(`≥ ${schema.minimum}`);
  if (schema.exclusiveMinimum !== undefined) notes.push(`> ${schema.exclusiveMinimum}`);
  if (schema.maximum !== undefined) notes.push(`≤ ${schema.maximum}`);
  if (schema.exclusiveMaximum !== undefined) notes.push(`< ${schema.exclusiveMaximum}`);
  if (schema.minItems !== undefined) notes.push(`at least ${schema.minItems} items`);
  if (schema.maxItems !== undefined) notes.push(`at most ${schema.maxItems} items`);
  if (schema.format !== undefined) notes.push(`format ${schema.format}`);
  if (schema.pattern !== undefined) notes.push(`pattern \`${schema.pattern}\``);
  if (schema.default !== undefined) notes.push(`default ${JSON.stringify(schema.default)}`);
  return notes.join('; ');
}

/** An object's fields, nested objects and arrays of objects flattened as `a.b` and `a[].b`. */
function rows(schema: JsonSchema, prefix = ''): Row[] {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((schema.required ?? []) as string[]);
  return Object.entries(properties).flatMap(([name, property]) => {
    const path = `${prefix}${name}`;
    const row = { name: path, type: typeOf(property), required: required.has(name), notes: notesOf(property) };
    const items = property.items as JsonSchema | undefined;
    if (property.properties) return [{ ...row, type: 'object' }, ...rows(property, `${path}.`)];
    if (items?.properties) return [{ ...row, type: 'object[]' }, ...rows(items, `${path}[].`)];
    return [row];
  });
}

function fieldTable(schema: JsonSchema, withRequired: boolean): string[] {
  const found = rows(schema);
  if (found.length === 0) return [`Type: ${typeOf(schema)}.`, ''];
  const header = withRequired
    ? ['| Field | Type | Required | Rules |', '| --- | --- | --- | --- |']
    : ['| Field | Type | Notes |', '| --- | --- | --- |'];
  return [
    ...header,
    ...found.map((row) =>
      withRequired
        ? `| \`${row.name}\` | ${cell(row.type)} | ${row.required ? 'yes' : 'no'} | ${cell(row.notes)} |`
        : `| \`${row.name}\` | ${cell(row.type)} | ${cell(row.notes)} |`,
    ),
    '',
  ];
}

function bodySection(schema: JsonSchema): string[] {
  const forms = schema.anyOf as JsonSchema[] | undefined;
  if (!forms) return fieldTable(schema, true);
  return forms.flatMap((form, index) => [`Form ${index + 1}:`, '', ...fieldTable(form, true)]);
}

/** A response, or the shared one (components.responses) it refers to. */
function resolve(response: Response & { $ref?: string }, shared: Record<string, Response>): Response {
  return response.$ref ? (shared[refName(response.$ref)] as Response) : response;
}

interface Operation {
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  security: unknown[];
  parameters?: (JsonSchema & { name: string; in: string; required: boolean; schema: JsonSchema })[];
  requestBody?: { required: boolean; content: Record<string, { schema: JsonSchema }> };
  responses: Record<string, { description: string; content?: Record<string, { schema?: JsonSchema }> }>;
}

const methods = ['get', 'post', 'put', 'delete', 'options'];

function operations(document: OpenApiDocument): { method: string; path: string; op: Operation }[] {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    methods
      .filter((method) => item[method])
      .map((method) => ({ method, path, op: item[method] as unknown as Operation })),
  );
}

function authOf(op: Operation): string {
  if (op.security.length === 0) return 'none (public)';
  return op.responses['403'] ? 'a `read_write` key' : 'a `read` or `read_write` key';
}

type Response = Operation['responses'][string];

function answers(op: Operation, shared: Record<string, Response>): string[] {
  return Object.entries(op.responses).map(([status, given]) => {
    const response = resolve(given, shared);
    const schema = response.content?.['application/json']?.schema;
    const shown = schema && Number(status) < 400 ? ` ${typeOf(schema)}` : '';
    const inline = schema && !schema.$ref && Number(status) < 400 && schema.properties ? ' (fields below)' : '';
    return `- \`${status}\`${shown}${inline}: ${response.description}`;
  });
}

function operationSection(
  { method, path, op }: { method: string; path: string; op: Operation },
  shared: Record<string, Response>,
): string[] {
  const lines = [`### \`${method.toUpperCase()} ${path}\``, '', `${op.summary}.`, ''];
  if (op.description) lines.push(op.description, '');
  lines.push(`Auth: ${authOf(op)}. Operation id: \`${op.operationId}\`.`, '');
  const params = op.parameters ?? [];
  if (params.length > 0) {
    lines.push('| Parameter | In | Type | Required | Rules |', '| --- | --- | --- | --- | --- |');
    for (const param of params) {
      const notes = [String(param.description ?? '').replace(/\.$/, ''), notesOf(param.schema)]
        .filter(Boolean)
        .join('; ');
      lines.push(
        `| \`${param.name}\` | ${param.in} | ${cell(typeOf(param.schema))} | ${param.required ? 'yes' : 'no'} | ${cell(notes)} |`,
      );
    }
    lines.push('');
  }
  const body = op.requestBody?.content['application/json']?.schema;
  if (body && op.requestBody) {
    lines.push(`Body (JSON${op.requestBody.required ? '' : ', optional'}):`, '', ...bodySection(body));
  }
  lines.push('Answers:', '', ...answers(op, shared), '');
  for (const [status, response] of Object.entries(op.responses)) {
    const schema = response.content?.['application/json']?.schema;
    if (schema && !schema.$ref && Number(status) < 400 && schema.properties) {
      lines.push(`\`${status}\` fields:`, '', ...fieldTable(schema, false));
    }
  }
  return lines;
}

export function apiReference(document: OpenApiDocument): string {
  const all = operations(document);
  const info = document.info as { description: string };
  const { schemas: components, responses: shared } = document.components as {
    schemas: Record<string, JsonSchema>;
    responses: Record<string, Response>;
  };
  const lines = [
    '# API reference',
    '',
    '<!-- Generated by `npm run openapi` from docs/openapi.json: do not edit (tests/unit/openapi.test.ts). -->',
    '',
    'Every route and field, from [the OpenAPI document](openapi.json) (also served at `GET /openapi.json`),',
    'which is generated from the schemas that validate requests. A typed client is in [client/](../client/).',
    '',
    info.description,
    '',
    '## Routes',
    '',
    '| Method | Path | Auth | Summary |',
    '| --- | --- | --- | --- |',
    ...all.map(
      ({ method, path, op }) =>
        `| ${method.toUpperCase()} | [\`${path}\`](#${anchor(`${method} ${path}`)}) | ${cell(authOf(op))} | ${cell(op.summary)} |`,
    ),
    '',
  ];
  for (const tag of (document.tags as { name: string }[]).map((t) => t.name)) {
    const tagged = all.filter(({ op }) => op.tags.includes(tag));
    if (tagged.length === 0) continue;
    lines.push(`## ${tag}`, '');
    for (const entry of tagged) lines.push(...operationSection(entry, shared));
  }
  lines.push(
    '## Schemas',
    '',
    'What answers carry. `additionalProperties: false`: an answer has exactly these fields.',
    '',
  );
  for (const [name, schema] of Object.entries(components)) {
    lines.push(`### ${name}`, '', ...fieldTable(schema, false));
  }
  return `${lines.join('\n').trimEnd()}\n`;
}
