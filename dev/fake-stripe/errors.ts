/** Stripe-shaped errors: a status and the `error` body Stripe answers with. */

export interface ApiErrorBody {
  type: string;
  message: string;
  code?: string;
  param?: string;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: ApiErrorBody,
  ) {
    super(body.message);
  }
}

export function invalid(message: string, param?: string, code?: string): ApiError {
  return new ApiError(400, {
    type: 'invalid_request_error',
    message,
    ...(code ? { code } : {}),
    ...(param ? { param } : {}),
  });
}

export function missing(param: string): ApiError {
  return invalid(`Missing required param: ${param}.`, param, 'parameter_missing');
}

export function noSuch(objectName: string, id: string, param: string): ApiError {
  return new ApiError(404, {
    type: 'invalid_request_error',
    code: 'resource_missing',
    param,
    message: `No such ${objectName}: '${id}'`,
  });
}

export function unrecognized(method: string, path: string): ApiError {
  return new ApiError(404, {
    type: 'invalid_request_error',
    message: `Unrecognized request URL (${method}: ${path}). Please see https://stripe.com/docs or we can help at https://support.stripe.com/.`,
  });
}
