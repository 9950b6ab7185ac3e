import { groupRoutes } from '#shared/routes.ts';

/** The webhooks function's routes: it bundles these and no other group's. */
export const webhooksRoutes = groupRoutes('webhooks', {
  // Stripe's events, signed with the project's webhook secret: public, no API key.
  'POST /api/payments/webhook/{shareId}': 'public',
});
