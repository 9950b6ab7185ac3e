import type { RouteDoc } from './action.ts';
import type { HttpResult } from './responses.ts';

/**
 * The answer to a CORS preflight of a public route. The Allow-Origin header itself is
 * added to every public answer by the pipeline's shared headers (shared/http/answer-middlewares.ts).
 */
export const preflight = (methods: string[], headers: string[]) => async (): Promise<HttpResult> => ({
  status: 204,
  headers: {
    'access-control-allow-methods': [...methods, 'OPTIONS'].join(', '),
    'access-control-allow-headers': headers.join(', '),
    'access-control-max-age': '86400',
  },
});

/** A preflight route's documentation. */
export const preflightResponse = (operationId: string): RouteDoc => ({
  operationId,
  summary: 'CORS preflight',
  responses: { 204: { description: 'The methods and headers a browser may use from any origin.' } },
});
