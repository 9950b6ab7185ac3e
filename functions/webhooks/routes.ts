import { groupRoutes } from '#shared/routes.ts';

export const webhooksRoutes = groupRoutes('webhooks', {
  // Stripe's events, signed with the project's webhook secret: public, no API key.
  'POST /api/payments/webhook/{shareId}': 'public',
});
