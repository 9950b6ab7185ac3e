import { DomainError, type ErrorCode, echo } from '#domain/errors.ts';
import type { HttpResult } from './responses.ts';

/** The one place where error codes become statuses. */
const statusByCode: Record<ErrorCode, number> = {
  validation_error: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  limit_exceeded: 409,
  payload_too_large: 413,
  payments_not_configured: 409,
  payment_provider_error: 502,
};

export class MethodNotAllowedError extends DomainError {
  readonly allow: string[];

  constructor(method: string, path: string, allow: string[]) {
    super('method_not_allowed', `${method} is not allowed on ${echo(path)}; allowed: ${allow.join(', ')}.`);
    this.name = 'MethodNotAllowedError';
    this.allow = allow;
  }
}

export class PayloadTooLargeError extends DomainError {
  constructor(limitBytes: number) {
    super('payload_too_large', `Request body is larger than ${limitBytes / 1024} KiB.`);
    this.name = 'PayloadTooLargeError';
  }
}

export function errorBody(code: string, message: string, details?: unknown) {
  return { error: { code, message, ...(details ? { details } : {}) } };
}

/** A domain error as a response; undefined for anything else (a bug: the caller logs it). */
export function domainErrorResult(error: unknown): HttpResult | undefined {
  if (!(error instanceof DomainError)) return undefined;
  return {
    status: statusByCode[error.code],
    body: errorBody(error.code, error.message, error.details),
    headers: error instanceof MethodNotAllowedError ? { allow: error.allow.join(', ') } : {},
  };
}

export function internalErrorResult(requestId: string): HttpResult {
  return {
    status: 500,
    body: errorBody('internal_error', `Internal error. If it persists, report request id ${requestId}.`),
  };
}
