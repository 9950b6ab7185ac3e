import { lambdaHandler } from '#http/group-handler.ts';
import { customers } from './actions.ts';

export const handler = lambdaHandler(customers, {});
