import { lambdaHandler } from '#http/group-handler.ts';
import { plans } from './actions.ts';

export const handler = lambdaHandler(plans, {});
