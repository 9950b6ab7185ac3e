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
  | 'limit_exceeded'
  | 'payments_not_configured'
  | 'payment_provider_error';

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

export class ValidationError extends DomainError {
  constructor(message: string, details?: ErrorDetail[]) {
    super('validation_error', message, details);
    this.name = 'ValidationError';
  }
}

export class UnauthorizedError extends DomainError {
  constructor(message = 'A valid API key is required: send "Authorization: Bearer <key>".') {
    super('unauthorized', message);
    this.name = 'UnauthorizedError';
  }
}

export class ForbiddenError extends DomainError {
  constructor(message = 'This API key is read-only; this endpoint needs a read_write key.') {
    super('forbidden', message);
    this.name = 'ForbiddenError';
  }
}

export class NotFoundError extends DomainError {
  constructor(message: string) {
    super('not_found', message);
    this.name = 'NotFoundError';
  }
}

export class ConflictError extends DomainError {
  constructor(message: string) {
    super('conflict', message);
    this.name = 'ConflictError';
  }
}

export class LimitExceededError extends DomainError {
  constructor(message: string) {
    super('limit_exceeded', message);
    this.name = 'LimitExceededError';
  }
}

/** The project cannot take payments: no payment key, or no redirect URL for the key's mode. */
export class PaymentsNotConfiguredError extends DomainError {
  constructor(message: string) {
    super('payments_not_configured', message);
    this.name = 'PaymentsNotConfiguredError';
  }
}

/** The payment processor failed or refused; the message is its own, with any secret removed. */
export class PaymentProviderError extends DomainError {
  constructor(message: string) {
    super('payment_provider_error', message);
    this.name = 'PaymentProviderError';
  }
}

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
