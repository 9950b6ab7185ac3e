import { isStorageBusy } from '#db/contention.ts';

/**
 * Domain errors carry a stable `code`; the HTTP layer maps codes to statuses in one
 * place (shared/http/errors.ts), and has codes of its own for what only HTTP knows
 * (a method a path does not take, a body too large). Nothing here knows about HTTP.
 */
export type ErrorCode =
  | 'validation_error'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'precondition_failed'
  | 'limit_exceeded'
  | 'payments_not_configured'
  | 'rate_limited'
  | 'payment_provider_error'
  | 'invalid_signature'
  | 'unavailable';

export interface ErrorDetail {
  path: string;
  message: string;
}

export class DomainError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorDetail[] | undefined;

  constructor(code: ErrorCode, message: string, details?: ErrorDetail[]) {
    super(message);
    this.name = 'DomainError';
    this.code = code;
    this.details = details;
  }
}

/** One DomainError subclass per code, named for it, so `instanceof` and logs say which. */
function errorClass(code: ErrorCode, name: string, defaultMessage = '') {
  return class extends DomainError {
    constructor(message = defaultMessage, details?: ErrorDetail[]) {
      super(code, message, details);
      this.name = name;
    }
  };
}

export const ValidationError = errorClass('validation_error', 'ValidationError');
export const UnauthorizedError = errorClass(
  'unauthorized',
  'UnauthorizedError',
  'A valid API key is required: send "Authorization: Bearer <key>".',
);
export const ForbiddenError = errorClass(
  'forbidden',
  'ForbiddenError',
  'This API key is read-only; this endpoint needs a read_write key.',
);
export const NotFoundError = errorClass('not_found', 'NotFoundError');
export const ConflictError = errorClass('conflict', 'ConflictError');
/** A conflict of this moment (a write that kept meeting others): the caller may send it again after `retryAfterSeconds`. */
export class ContendedError extends ConflictError {
  readonly retryAfterSeconds = 1;

  constructor(message: string) {
    super(message);
    this.name = 'ContendedError';
  }
}
/** An If-Match that names a version the resource no longer has (or never had). */
export const PreconditionFailedError = errorClass(
  'precondition_failed',
  'PreconditionFailedError',
  'If-Match names a version this resource no longer has: GET it again, redo the change, and send its current ETag.',
);
export const LimitExceededError = errorClass('limit_exceeded', 'LimitExceededError');
/** The project cannot take payments: no payment key, or no redirect URL for the key's mode. */
export const PaymentsNotConfiguredError = errorClass('payments_not_configured', 'PaymentsNotConfiguredError');
/** The payment processor failed or refused; the message is its own, with any secret removed. */
export const PaymentProviderError = errorClass('payment_provider_error', 'PaymentProviderError');

/** Too many calls for now; the caller may try again after `retryAfterSeconds` (at least 1). */
export class RateLimitedError extends DomainError {
  readonly retryAfterSeconds: number;

  constructor(message: string, retryAfterSeconds: number) {
    super('rate_limited', message);
    this.name = 'RateLimitedError';
    this.retryAfterSeconds = Math.max(1, Math.ceil(retryAfterSeconds));
  }
}
/**
 * The write could not commit now (concurrent writes of the same items outlasted its retries,
 * or DynamoDB throttled): nothing half-done is left, and the same request may be sent again
 * after `retryAfterSeconds`.
 */
export class UnavailableError extends DomainError {
  readonly retryAfterSeconds: number;

  constructor(message: string, retryAfterSeconds = 1) {
    super('unavailable', message);
    this.name = 'UnavailableError';
    this.retryAfterSeconds = Math.max(1, Math.ceil(retryAfterSeconds));
  }
}

/** Storage's "not now" (shared/db/errors.ts) as a 503; undefined for anything else (a bug). */
export function unavailableFrom(error: unknown): UnavailableError | undefined {
  if (!isStorageBusy(error)) return undefined;
  return new UnavailableError(
    'The table could not take this request in time (concurrent writes of the same data, or over its throughput); nothing was changed: send the same request again.',
  );
}

/** A webhook whose signature does not verify (bad, missing, stale, or another secret's). */
export const InvalidSignatureError = errorClass('invalid_signature', 'InvalidSignatureError');

/** Echoes what the caller sent, but never more than a line of it. */
export const echo = (value: number | string) => {
  const text = String(value);
  return text.length > 80 ? `${text.slice(0, 80)}…` : text;
};

export const projectNotFound = (slug: string) => new NotFoundError(`Project "${echo(slug)}" not found.`);
export const planNotFound = (planId: number | string) =>
  new NotFoundError(`Plan ${echo(planId)} not found in this project.`);
export const featureNotFound = (featureId: number | string) =>
  new NotFoundError(`Feature ${echo(featureId)} not found in this project.`);

/** A create the project's count refused: the project is gone, or it holds `max` already. */
export const countRefused = (refusal: 'project_gone' | 'limit_reached', slug: string, max: number, things: string) =>
  refusal === 'project_gone'
    ? projectNotFound(slug)
    : new LimitExceededError(`A project holds at most ${max} ${things}; delete one before adding another.`);
