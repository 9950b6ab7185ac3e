import { lambdaHandler } from '#http/group-handler.ts';
import { docsRoutes } from '#shared/route-slices.ts';
import { docs } from './actions.ts';

export const handler = lambdaHandler(docs, {}, docsRoutes);
