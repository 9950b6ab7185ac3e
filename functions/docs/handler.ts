import { lambdaHandler } from '#http/group-handler.ts';
import { docs } from './actions.ts';

export const handler = lambdaHandler(docs, {});
