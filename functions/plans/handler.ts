import { lambdaHandler } from '#http/group-handler.ts';
import { plansRoutes } from '#shared/route-slices.ts';
import { plans } from './actions.ts';

export const handler = lambdaHandler(plans, {}, plansRoutes);
