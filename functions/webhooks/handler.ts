import { lambdaHandler } from '#http/group-handler.ts';
import { stripeWebhookVerifier } from '#shared/payments/stripe-webhooks.ts';
import { kmsKeyringFor } from '#shared/secrets/kms-keyring.ts';
import { webhooks } from './actions.ts';

/** Webhooks open the project's sealed signing secret: a stage without a keyring fails its cold start. */
export const handler = lambdaHandler(webhooks, { keyring: kmsKeyringFor, webhooks: stripeWebhookVerifier });
