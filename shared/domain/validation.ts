import type * as z from 'zod';
import { type ErrorDetail, ValidationError } from './errors.ts';

function formatPath(path: ReadonlyArray<PropertyKey>): string {
  return path.reduce<string>((out, key) => {
    if (typeof key === 'number') return `${out}[${key}]`;
    return out ? `${out}.${String(key)}` : String(key);
  }, '');
}

/**
 * Parses input with a schema; a failure becomes a validation error whose details name
 * every offending field. `what` says where the input came from ("request body", "query string").
 */
export function parse<S extends z.ZodType>(schema: S, value: unknown, what = 'request body'): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const details: ErrorDetail[] = result.error.issues.map((issue) => ({
    path: formatPath(issue.path),
    message: issue.message,
  }));
  const first = details[0];
  const summary = first?.path ? `${first.path}: ${first.message}` : (first?.message ?? 'is invalid');
  const more = details.length > 1 ? ` (and ${details.length - 1} more)` : '';
  throw new ValidationError(`Invalid ${what}: ${summary}${more}.`, details);
}
