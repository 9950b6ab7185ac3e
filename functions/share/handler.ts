import { lambdaHandler } from '#http/group-handler.ts';
import { share } from './actions.ts';

export const handler = lambdaHandler(share, {});
