import { type ApiError, invalid, missing } from './errors.ts';
import { isHash, type Params, setOwn } from './form.ts';

// Parameter validation, with Stripe's messages and `param` paths.

/** Stripe counts characters, not UTF-16 code units. */
export function charLength(value: string): number {
  return [...value].length;
}

export function name(prefix: string, key: string | number): string {
  return prefix ? `${prefix}[${key}]` : String(key);
}

export function rejectUnknown(params: Params, allowed: readonly string[], prefix: string): void {
  for (const key of Object.keys(params)) {
    if (!allowed.includes(key)) {
      const param = name(prefix, key);
      throw invalid(`Received unknown parameter: ${param}`, param);
    }
  }
}

function emptyString(param: string): ApiError {
  return invalid(
    `You passed an empty string for '${param}'. We assume empty values are an attempt to unset a parameter; however '${param}' cannot be unset. You should remove '${param}' from your request or supply a non-empty value.`,
    param,
  );
}

export function hash(value: unknown, param: string): Params | undefined {
  if (value === undefined || value === '') return undefined;
  if (!isHash(value)) throw invalid('Invalid hash', param);
  return value;
}

export function list(value: unknown, param: string): unknown[] | undefined {
  if (value === undefined || value === '') return undefined;
  if (!Array.isArray(value)) throw invalid('Invalid array', param);
  return value;
}

export function text(value: unknown, param: string, required: boolean): string | undefined {
  if (value === undefined) {
    if (required) throw missing(param);
    return undefined;
  }
  if (typeof value !== 'string') throw invalid(`Invalid string: ${JSON.stringify(value)}`, param);
  if (value === '') {
    if (required) throw emptyString(param);
    return undefined;
  }
  return value;
}

export function integer(value: unknown, param: string, min: number, max: number): number {
  if (typeof value !== 'string' || !/^-?[0-9]+$/.test(value)) {
    throw invalid(`Invalid integer: ${typeof value === 'string' ? value : JSON.stringify(value)}`, param);
  }
  const n = Number(value);
  if (n < min) throw invalid(`This value must be greater than or equal to ${min}.`, param);
  if (n > max) throw invalid(`This value must be less than or equal to ${max}.`, param);
  return n;
}

export function oneOf<T extends string>(value: string, allowed: readonly T[], param: string): T {
  const found = allowed.find((candidate) => candidate === value);
  if (found === undefined) {
    const choices =
      allowed.length > 1 ? `${allowed.slice(0, -1).join(', ')}, or ${allowed.at(-1)}` : (allowed[0] ?? '');
    throw invalid(`Invalid ${param}: must be one of ${choices}`, param);
  }
  return found;
}

export function bool(value: unknown, param: string): boolean | undefined {
  if (value === undefined || value === '') return undefined;
  if (value !== 'true' && value !== 'false') throw invalid(`Invalid boolean: ${JSON.stringify(value)}`, param);
  return value === 'true';
}

export function absoluteUrl(value: unknown, param: string, required: boolean): string | undefined {
  const url = text(value, param, required);
  if (url === undefined) return undefined;
  const protocol = URL.canParse(url) ? new URL(url).protocol : undefined;
  if ((protocol !== 'http:' && protocol !== 'https:') || url.length > 5000) {
    throw invalid('Not a valid URL', param, 'url_invalid');
  }
  return url;
}

export function metadata(value: unknown, param: string): Record<string, string> {
  if (value === undefined || value === '') return {};
  // Keys "0", "1", ... are legal metadata keys that the form decoding turned into an array.
  const entries = Array.isArray(value)
    ? value.map((v, i): [string, unknown] => [String(i), v])
    : Object.entries(hash(value, param) ?? {});
  if (entries.length > 50) {
    throw invalid(`Metadata can have up to 50 keys, but you passed in ${entries.length} keys.`, param);
  }
  const out: Record<string, string> = {};
  for (const [key, v] of entries) {
    const keyParam = name(param, key);
    if (charLength(key) > 40) {
      throw invalid(
        `Metadata keys can have up to 40 characters, but you passed in a key that is ${charLength(key)} characters. Invalid key: ${key}`,
        keyParam,
      );
    }
    if (typeof v !== 'string') throw invalid(`Invalid string: ${JSON.stringify(v)}`, keyParam);
    if (charLength(v) > 500) {
      throw invalid(
        `Metadata values can have up to 500 characters, but you passed in a value that is ${charLength(v)} characters. Invalid value: ${v}`,
        keyParam,
      );
    }
    // An empty value unsets a key, so on create it is simply absent.
    if (v !== '') setOwn(out, key, v);
  }
  return out;
}

export function expandList(value: unknown, supported: readonly string[]): string[] {
  const items = list(value, 'expand') ?? [];
  return items.map((item, i) => {
    const path = text(item, name('expand', i), true) ?? '';
    if (!supported.includes(path)) throw invalid(`This property cannot be expanded (${path}).`);
    return path;
  });
}
