import { deleteProject } from '#domain/projects/delete.ts';
import { createProject, getProject, listProjects, updateProject } from '#domain/projects/projects.ts';
import { CreateProjectBody, UpdateProjectBody } from '#domain/projects/schemas.ts';
import { defineGroup, route } from '#http/action.ts';
import { created, ok, success } from '#http/responses.ts';

export const projects = defineGroup('projects', [
  route('GET /api/v1/projects', {
    run: async ({ principal }) => ok({ projects: await listProjects(principal.ownerId) }),
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
