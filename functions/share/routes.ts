import type { GroupRoute } from '#shared/routes.ts';

/** The share function's routes: it bundles these and no other group's. */
export const shareRoutes = [
  { method: 'GET', path: '/api/share/{shareId}', group: 'share', auth: 'public' },
  { method: 'OPTIONS', path: '/api/share/{shareId}', group: 'share', auth: 'public' },
  // The embeddable widget and a plain page that shows it, served by the same function.
  { method: 'GET', path: '/widget.js', group: 'share', auth: 'public' },
  { method: 'GET', path: '/demo/{shareId}', group: 'share', auth: 'public' },
  // What this API is and where its document is; whether it can reach its table.
  { method: 'GET', path: '/', group: 'share', auth: 'public' },
  { method: 'GET', path: '/health', group: 'share', auth: 'public' },
] as const satisfies readonly GroupRoute<'share'>[];
