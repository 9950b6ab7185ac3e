import type { GroupRoute } from '#shared/routes.ts';

/** The webhooks function's routes: it bundles these and no other group's. */
export const webhooksRoutes = [
  // Stripe's events, signed with the project's webhook secret: public, no API key.
  { method: 'POST', path: '/api/payments/webhook/{shareId}', group: 'webhooks', auth: 'public' },
] as const satisfies readonly GroupRoute<'webhooks'>[];
