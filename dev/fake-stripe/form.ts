import { type ApiError, invalid } from './errors.ts';

export type Params = Record<string, unknown>;

export function isHash(value: unknown): value is Params {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

// Plain assignment would treat `__proto__` as the prototype; as an own key it is just an
// unknown parameter, which validation then rejects.
export function setOwn(target: Params, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

function getOwn(target: Params, key: string): unknown {
  return Object.hasOwn(target, key) ? target[key] : undefined;
}

// Form decoding, as Stripe's (Rack's) parser does it: `a[b][0][c]=v` into nested hashes,
// with hashes whose keys are exactly 0..n-1 turned into arrays.

const INDEX = /^(0|[1-9][0-9]*)$/;

function decodeComponent(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    throw invalid('Invalid request: the parameters could not be decoded as application/x-www-form-urlencoded.');
  }
}

function splitKey(key: string): string[] {
  const match = /^([^[\]]+)((?:\[[^[\]]*\])*)$/.exec(key);
  if (!match?.[1]) throw invalid(`Invalid request: malformed parameter name '${key}'.`);
  const segments = [match[1]];
  for (const part of (match[2] ?? '').matchAll(/\[([^[\]]*)\]/g)) segments.push(part[1] ?? '');
  return segments;
}

function conflict(key: string): ApiError {
  return invalid(`Invalid request: parameter '${key}' is given both as a value and as a hash.`);
}

export function parseForm(text: string): Params {
  const root: Params = {};
  for (const pair of text.split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const key = decodeComponent(eq === -1 ? pair : pair.slice(0, eq));
    const value = decodeComponent(eq === -1 ? '' : pair.slice(eq + 1));
    const segments = splitKey(key);
    let node = root;
    for (let i = 0; i < segments.length; i++) {
      // `expand[]=a&expand[]=b` (curl style) appends.
      const segment = segments[i] || String(Object.keys(node).length);
      if (i === segments.length - 1) {
        if (isHash(getOwn(node, segment))) throw conflict(key);
        setOwn(node, segment, value);
      } else {
        let child = getOwn(node, segment);
        if (child === undefined) {
          child = {};
          setOwn(node, segment, child);
        }
        if (!isHash(child)) throw conflict(key);
        node = child;
      }
    }
  }
  return arrayify(root) as Params;
}

function arrayify(value: unknown): unknown {
  if (!isHash(value)) return value;
  const keys = Object.keys(value);
  if (keys.length > 0 && keys.every((key, i) => INDEX.test(key) && Number(key) === i)) {
    return keys.map((key) => arrayify(value[key]));
  }
  const out: Params = {};
  for (const key of keys) setOwn(out, key, arrayify(value[key]));
  return out;
}

export function decodeComponentSafe(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
