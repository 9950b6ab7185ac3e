import { createProject, deleteProject, getProject, listProjects, updateProject } from '#domain/projects/projects.ts';
import { CreateProjectBody, UpdateProjectBody } from '#domain/projects/schemas.ts';
import { defineGroup, route } from '#http/action.ts';
import { publicBaseUrl } from '#http/base-url.ts';
import { created, ok, success } from '#http/responses.ts';

export const projects = defineGroup('projects', [
  route('GET /api/v1/projects', {
    run: async ({ principal, config, headers }) =>
      ok({ projects: await listProjects(principal.ownerId, publicBaseUrl(config, headers)) }),
  }),
  route('POST /api/v1/projects', {
    body: CreateProjectBody,
    run: async ({ principal, body, ports, config, headers }) =>
      created(await createProject(ports.keyring, principal.ownerId, body, publicBaseUrl(config, headers))),
  }),
  route('GET /api/v1/projects/{slug}', {
    run: async ({ project, config, headers }) => ok(await getProject(project, publicBaseUrl(config, headers))),
  }),
  route('PUT /api/v1/projects/{slug}', {
    body: UpdateProjectBody,
    run: async ({ project, body, ports, config, headers }) =>
      ok(await updateProject(ports.keyring, project, body, publicBaseUrl(config, headers))),
  }),
  route('DELETE /api/v1/projects/{slug}', {
    run: async ({ project }) => {
      await deleteProject(project);
      return success();
    },
  }),
]);
