import * as z from 'zod';
import { type ErrorDetail, ValidationError } from './errors.ts';
import { closestField } from './suggest.ts';

/**
 * A schema (or a shape of schemas) built at its first use and kept. Every schema of a request, an answer or a stored
 * value is declared this way rather than built by a module body: a function's init builds
 * none (zod's warm-up and each schema's construction belong to the first request that uses
 * it), and a request builds only the schemas it uses (docs/decisions.md, "Bundles and cold
 * starts"). The same schema object comes back at every call, so zod's JSON Schema conversion
 * sees one schema wherever it is used.
 */
export function lazySchema<S>(build: () => S): () => S {
  let built: { schema: S } | undefined;
  return () => {
    built ??= { schema: build() };
    return built.schema;
  };
}

function formatPath(path: ReadonlyArray<PropertyKey>): string {
  return path.reduce<string>((out, key) => {
    if (typeof key === 'number') return `${out}[${key}]`;
    return out ? `${out}.${String(key)}` : String(key);
  }, '');
}

/**
 * The fields an object knew, by the `keys` array of the `unrecognized_keys` issue it raised.
 * Zod hands that array on unchanged, also through nested parses, so `parse` finds the
 * candidates for a suggestion without walking the schema.
 */
const knownFieldsOf = new WeakMap<readonly string[], readonly string[]>();

const rememberKnownFields: z.core.$ZodErrorMap = (issue) => {
  if (issue.code !== 'unrecognized_keys') return undefined;
  const shape = (issue.inst as z.ZodObject | undefined)?._zod.def.shape ?? {};
  knownFieldsOf.set(issue.keys, Object.keys(shape));
  return issue.keys.length === 1 ? 'unknown field' : 'unknown fields';
};

/**
 * A request object that refuses fields it does not know: each is a 400 naming it and the
 * nearest known field (a typo is never silently dropped).
 */
export function strictObject<Shape extends z.core.$ZodLooseShape>(shape: Shape) {
  return z.strictObject(shape, { error: rememberKnownFields });
}

/**
 * Lets a request body carry what the resource's own GET returns, so GET-edit-PUT works:
 * those fields are dropped before the strict schema sees them (`readOnly`), and `aliases`
 * read a GET name as the request's name (`themeSettings` → `theme`) unless both are sent.
 */
export function acceptingReadFields<S extends z.ZodType>(
  schema: S,
  readOnly: readonly string[],
  aliases: Readonly<Record<string, string>> = {},
) {
  const ignored = new Set(readOnly);
  return z.preprocess((input) => {
    if (input === null || typeof input !== 'object' || Array.isArray(input)) return input;
    const kept: [string, unknown][] = [];
    for (const [key, value] of Object.entries(input)) {
      // Own keys only: a field named like an Object.prototype member (`toString`, `__proto__`) is a field.
      const alias = Object.hasOwn(aliases, key) ? aliases[key] : undefined;
      if (alias !== undefined) {
        if (!Object.hasOwn(input, alias)) kept.push([alias, value]);
      } else if (!ignored.has(key)) kept.push([key, value]);
    }
    // fromEntries defines own properties, so a "__proto__" field stays a field (and is refused).
    return Object.fromEntries(kept);
  }, schema);
}

/** The fields a view returns that a body does not take: what `acceptingReadFields` ignores. */
export const readOnlyFields = (view: z.ZodObject, ...bodies: z.ZodObject[]): string[] =>
  Object.keys(view.shape).filter((key) => bodies.every((body) => !(key in body.shape)));

const TYPE_NAMES: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'a whole number',
  boolean: 'true or false',
  object: 'an object',
  array: 'an array',
  null: 'null',
};

/** Messages for people where a field's schema gives none of its own. */
const forPeople: z.core.$ZodErrorMap = (issue) => {
  switch (issue.code) {
    case 'invalid_type':
      if (issue.input === undefined) return 'is required';
      return `must be ${TYPE_NAMES[issue.expected] ?? `of type ${issue.expected}`}`;
    case 'too_small':
    case 'too_big': {
      const bound = issue.code === 'too_small' ? issue.minimum : issue.maximum;
      const side = issue.code === 'too_small' ? 'least' : 'most';
      const strict = issue.code === 'too_small' ? 'more than' : 'less than';
      const noun = issue.origin === 'string' ? 'character' : issue.origin === 'array' ? 'item' : '';
      const unit = noun && ` ${noun}${Number(bound) === 1 ? '' : 's'}`;
      return issue.inclusive === false ? `must be ${strict} ${bound}${unit}` : `must be at ${side} ${bound}${unit}`;
    }
    case 'invalid_value':
      return `must be one of ${issue.values.map((value) => JSON.stringify(value)).join(', ')}`;
    case 'invalid_format':
      return `must be a valid ${issue.format}`;
    default:
      return 'is invalid';
  }
};

/** A body may hold thousands of unknown fields, or a huge name: the answer names a few, shortened. */
const MAX_UNKNOWN_DETAILS = 20;
const shown = (key: string) => (key.length > 100 ? `${key.slice(0, 100)}…` : key);

/**
 * A field that is absent: "is required", whatever its schema says of a wrong value (a
 * field's own message, such as an id's "must be a positive whole number", outranks the
 * parse's error map in zod, so the absence is recognised here, by the input the issue reports).
 */
const isMissing = (issue: z.core.$ZodIssue) =>
  issue.path.length > 0 &&
  (issue.code === 'invalid_type' || issue.code === 'invalid_union') &&
  (issue as { input?: unknown }).input === undefined;

/** One detail per field, and the sentence the error's message opens with for each. */
function detailsOf(issues: readonly z.core.$ZodIssue[]): { details: ErrorDetail[]; sentences: string[] } {
  const details: ErrorDetail[] = [];
  const sentences: string[] = [];
  const seen = new Set<string>();
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys') {
      const known = knownFieldsOf.get(issue.keys) ?? [];
      for (const key of issue.keys.slice(0, MAX_UNKNOWN_DETAILS)) {
        const nearest = closestField(key, known);
        const hint = nearest ? `; did you mean "${nearest}"?` : '';
        const path = formatPath([...issue.path, shown(key)]);
        details.push({ path, message: `unknown field "${shown(key)}"${hint}` });
        sentences.push(`unknown field "${path}"${hint}`);
      }
      continue;
    }
    // One message per field: the first problem found is the one to fix; except problems that
    // are each worth a line (every refused rule of a customCSS), marked `each`.
    const path = formatPath(issue.path);
    const each = issue.code === 'custom' && issue.params?.each === true;
    if (seen.has(path) && !each) continue;
    seen.add(path);
    const message = isMissing(issue) ? 'is required' : issue.message;
    details.push({ path, message });
    // "name is required" reads as a sentence; a message that opens with a quote or a name
    // ("`position: fixed` is not allowed") is set off by a colon.
    const joiner = /^[a-z]/.test(message) ? ' ' : ': ';
    sentences.push(path ? `${path}${joiner}${message}` : message);
  }
  return { details, sentences };
}

/**
 * How every request input is parsed: messages for people, and each issue's input kept so
 * an absent field reads "is required". A schema that parses a part itself (choosing a form
 * by what was sent) parses it with this too, so its issues read the same.
 */
export const requestParsing = { error: forPeople, reportInput: true } as const;

/**
 * Parses input with a schema; a failure becomes a validation error whose details name
 * every offending field once. `what` says where the input came from ("request body", "query string").
 */
export function parse<S extends z.ZodType>(schema: () => S, value: unknown, what = 'request body'): z.output<S> {
  const result = schema().safeParse(value, requestParsing);
  if (result.success) return result.data;
  const { details, sentences } = detailsOf(result.error.issues);
  const more = details.length > 1 ? ` (and ${details.length - 1} more)` : '';
  const sentence = `Invalid ${what}: ${sentences[0] ?? 'is invalid'}${more}`;
  throw new ValidationError(sentence.endsWith('?') ? sentence : `${sentence}.`, details);
}
