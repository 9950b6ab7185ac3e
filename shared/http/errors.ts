import * as z from 'zod';
import {
  ContendedError,
  DomainError,
  type ErrorCode,
  echo,
  RateLimitedError,
  UnavailableError,
  unavailableFrom,
} from '#domain/errors.ts';
import { lazySchema } from '#domain/validation.ts';
import type { HttpResult } from './responses.ts';

/** Failures only HTTP knows: a method the path does not take, a body over the limit. */
export type HttpErrorCode = 'method_not_allowed' | 'payload_too_large';

/** The one place where error codes become statuses. */
export const statusByCode: Record<ErrorCode | HttpErrorCode, number> = {
  validation_error: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  precondition_failed: 412,
  limit_exceeded: 409,
  payload_too_large: 413,
  payments_not_configured: 409,
  rate_limited: 429,
  payment_provider_error: 502,
  invalid_signature: 400,
  unavailable: 503,
};

export class HttpError extends Error {
  readonly code: HttpErrorCode;
  readonly headers: Record<string, string>;

  constructor(code: HttpErrorCode, message: string, headers: Record<string, string> = {}) {
    super(message);
    this.name = 'HttpError';
    this.code = code;
    this.headers = headers;
  }
}

export const methodNotAllowed = (method: string, path: string, allow: string[]) =>
  new HttpError('method_not_allowed', `${method} is not allowed on ${echo(path)}; allowed: ${allow.join(', ')}.`, {
    allow: allow.join(', '),
  });

export const payloadTooLarge = (limitBytes: number) =>
  new HttpError('payload_too_large', `Request body is larger than ${limitBytes / 1024} KiB.`);

/** Every error answer's body; `details` only for validation. */
export const ErrorBody = lazySchema(() =>
  z.strictObject({
    error: z.strictObject({
      code: z.enum([...(Object.keys(statusByCode) as (keyof typeof statusByCode)[]), 'internal_error']),
      message: z.string(),
      details: z.array(z.strictObject({ path: z.string(), message: z.string() })).optional(),
    }),
  }),
);

export function errorBody(code: string, message: string, details?: unknown) {
  return { error: { code, message, ...(details ? { details } : {}) } };
}

/** A domain or HTTP error as a response; undefined for anything else (a bug: the caller logs it). */
export function errorResult(thrown: unknown): HttpResult | undefined {
  if (thrown instanceof HttpError) {
    return { status: statusByCode[thrown.code], body: errorBody(thrown.code, thrown.message), headers: thrown.headers };
  }
  // Storage that cannot take a write now (contention, throttling) is a 503, never a 500.
  const error = thrown instanceof DomainError ? thrown : unavailableFrom(thrown);
  if (!error) return undefined;
  const result = { status: statusByCode[error.code], body: errorBody(error.code, error.message, error.details) };
  if (error instanceof RateLimitedError || error instanceof UnavailableError || error instanceof ContendedError) {
    // A refusal of this moment: no cache may answer it later.
    return { ...result, headers: { 'retry-after': String(error.retryAfterSeconds), 'cache-control': 'no-store' } };
  }
  return result;
}

export function internalErrorResult(requestId: string): HttpResult {
  return {
    status: 500,
    body: errorBody('internal_error', `Internal error. If it persists, report request id ${requestId}.`),
  };
}
