import { PageQuery } from '#domain/pages.ts';
import { deleteProject } from '#domain/projects/delete.ts';
import { listProjectsPage } from '#domain/projects/list.ts';
import { createProject, getProject, listProjects, updateProject } from '#domain/projects/projects.ts';
import { CreateProjectBody, UpdateProjectBody } from '#domain/projects/schemas.ts';
import { defineGroup, route } from '#http/action.ts';
import { created, ok, success } from '#http/responses.ts';

export const projects = defineGroup('projects', [
  route('GET /api/v1/projects', {
    query: PageQuery,
    // Without `limit` or `cursor`, every project (interface.md); with either, a page.
    run: async ({ principal, query }) =>
      ok(
        query.limit === undefined && query.cursor === undefined
          ? { projects: await listProjects(principal.ownerId) }
          : await listProjectsPage(principal.ownerId, query),
      ),
  }),
  route('POST /api/v1/projects', {
    body: CreateProjectBody,
    run: async ({ principal, body, ports }) => created(await createProject(ports.keyring, principal.ownerId, body)),
  }),
  route('GET /api/v1/projects/{slug}', {
    run: async ({ project }) => ok(await getProject(project)),
  }),
  route('PUT /api/v1/projects/{slug}', {
    body: UpdateProjectBody,
    run: async ({ project, body, ports }) => ok(await updateProject(ports.keyring, project, body)),
  }),
  route('DELETE /api/v1/projects/{slug}', {
    run: async ({ project, ports }) => {
      await deleteProject(ports.sweeps, project);
      return success();
    },
  }),
]);
