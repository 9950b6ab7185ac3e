import type { RouteDoc } from './action.ts';
import type { HttpResult } from './responses.ts';

/**
 * The action of a CORS preflight route of a public route: its documentation and its 204. The
 * Allow-Origin header itself is added to every public answer by the pipeline's shared headers
 * (shared/http/answer-middlewares.ts).
 */
export const preflight = (
  operationId: string,
  methods: string[],
  headers: string[],
): { doc: RouteDoc; run: () => Promise<HttpResult> } => ({
  doc: {
    operationId,
    summary: 'CORS preflight',
    responses: { 204: { description: 'The methods and headers a browser may use from any origin.' } },
  },
  run: async () => ({
    status: 204,
    headers: {
      'access-control-allow-methods': [...methods, 'OPTIONS'].join(', '),
      'access-control-allow-headers': headers.join(', '),
      'access-control-max-age': '86400',
    },
  }),
});
