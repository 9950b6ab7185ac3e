import type { GroupRoute } from '#shared/routes.ts';

/** The projects function's routes: it bundles these and no other group's. */
export const projectsRoutes = [
  { method: 'GET', path: '/api/v1/projects', group: 'projects', auth: 'read' },
  { method: 'POST', path: '/api/v1/projects', group: 'projects', auth: 'write' },
  { method: 'GET', path: '/api/v1/projects/{slug}', group: 'projects', auth: 'read' },
  { method: 'PUT', path: '/api/v1/projects/{slug}', group: 'projects', auth: 'write' },
  { method: 'DELETE', path: '/api/v1/projects/{slug}', group: 'projects', auth: 'write' },
  { method: 'GET', path: '/api/v1/projects/{slug}/changes', group: 'projects', auth: 'read' },
] as const satisfies readonly GroupRoute<'projects'>[];
