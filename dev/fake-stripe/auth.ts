import { ApiError } from './errors.ts';

// One "account" per API key: Bearer (and curl's Basic) auth, Stripe's 401s.

const API_KEY = /^(sk|rk)_(test|live)_[A-Za-z0-9]+$/;
const NO_KEY_MESSAGE =
  "You did not provide an API key. You need to provide your API key in the Authorization header, using Bearer auth (e.g. 'Authorization: Bearer YOUR_SECRET_KEY'). See https://stripe.com/docs/api#authentication for details, or we can help at https://support.stripe.com/.";

function maskKey(key: string): string {
  const prefix = /^[A-Za-z]+_(?:test|live)_/.exec(key)?.[0] ?? '';
  const rest = key.slice(prefix.length);
  // Short keys would be given away by their last four characters.
  return `${prefix}****${rest.length >= 12 ? rest.slice(-4) : ''}`;
}

export function apiKeyOf(authorization: string | undefined): string | undefined {
  if (!authorization) return undefined;
  const bearer = /^Bearer\s+(.*)$/i.exec(authorization);
  if (bearer) return bearer[1]?.trim() || undefined;
  const basic = /^Basic\s+(.*)$/i.exec(authorization)?.[1];
  if (basic === undefined) return undefined;
  return Buffer.from(basic, 'base64').toString('utf8').split(':')[0] || undefined;
}

export function authenticate(key: string | undefined): string {
  if (key === undefined) throw new ApiError(401, { type: 'invalid_request_error', message: NO_KEY_MESSAGE });
  if (!API_KEY.test(key) || key.includes('invalid')) {
    throw new ApiError(401, { type: 'invalid_request_error', message: `Invalid API Key provided: ${maskKey(key)}` });
  }
  return key;
}
