import { createProject, deleteProject, getProject, listProjects, updateProject } from '#domain/projects/projects.ts';
import { CreateProjectBody, UpdateProjectBody } from '#domain/projects/schemas.ts';
import { parse } from '#domain/validation.ts';
import { createGroupHandler } from '#http/group-handler.ts';
import { projectKey } from '#http/params.ts';
import { created, ok, success } from '#http/responses.ts';
import { keyring } from '#shared/secrets/keyring.ts';

// At init: projects seal payment keys, so a stage without a keyring fails its cold start.
keyring();

export const handler = createGroupHandler('projects', {
  'GET /api/v1/projects': {
    run: async ({ principal }) => ok({ projects: await listProjects(principal.ownerId) }),
  },
  'POST /api/v1/projects': {
    body: 'required',
    run: async ({ principal, body }) => created(await createProject(principal.ownerId, parse(CreateProjectBody, body))),
  },
  'GET /api/v1/projects/{slug}': {
    run: async ({ principal, path }) => ok(await getProject(projectKey(principal, path))),
  },
  'PUT /api/v1/projects/{slug}': {
    body: 'required',
    run: async ({ principal, path, body }) => {
      const input = parse(UpdateProjectBody, body);
      return ok(await updateProject(projectKey(principal, path), input));
    },
  },
  'DELETE /api/v1/projects/{slug}': {
    run: async ({ principal, path }) => {
      await deleteProject(projectKey(principal, path));
      return success();
    },
  },
});
