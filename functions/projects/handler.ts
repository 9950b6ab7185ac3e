import { lambdaHandler } from '#http/group-handler.ts';
import { keyringFor } from '#shared/secrets/keyring.ts';
import { projects } from './actions.ts';

/** Projects seal payment keys: a stage without a keyring fails its cold start. */
export const handler = lambdaHandler(projects, { keyring: keyringFor });
