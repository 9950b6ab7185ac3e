import { lambdaHandler } from '#http/group-handler.ts';
import { customersRoutes } from '#shared/route-slices.ts';
import { customers } from './actions.ts';

export const handler = lambdaHandler(customers, {}, customersRoutes);
