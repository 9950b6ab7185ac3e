import { lambdaHandler } from '#http/group-handler.ts';
import { featuresRoutes } from '#shared/route-slices.ts';
import { features } from './actions.ts';

export const handler = lambdaHandler(features, {}, featuresRoutes);
