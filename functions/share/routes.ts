import { groupRoutes } from '#shared/routes.ts';

export const shareRoutes = groupRoutes('share', {
  'GET /api/share/{shareId}': 'public',
  'OPTIONS /api/share/{shareId}': 'public',
  // The embeddable widget and a plain page that shows it, served by the same function.
  'GET /widget.js': 'public',
  'GET /demo/{shareId}': 'public',
  // What this API is and where its document is; whether it can reach its table.
  'GET /': 'public',
  'GET /health': 'public',
});
