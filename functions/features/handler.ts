import { lambdaHandler } from '#http/group-handler.ts';
import { features } from './actions.ts';

export const handler = lambdaHandler(features, {});
