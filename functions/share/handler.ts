import { lambdaHandler } from '#http/group-handler.ts';
import { routes } from '../routes.ts';
import { share } from './actions.ts';

/**
 * Share is also the fallback group: API Gateway's `$default` (any request no route matched)
 * comes here, so it routes by the whole table to answer 404, or 405 with the path's Allow.
 */
export const handler = lambdaHandler(share, {}, routes);
