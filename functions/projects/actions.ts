import * as z from 'zod';
import { PageQuery } from '#domain/pages.ts';
import { deleteProject } from '#domain/projects/delete.ts';
import { listProjectsPage } from '#domain/projects/list.ts';
import { createProject, getProject, listProjects, updateProject } from '#domain/projects/projects.ts';
import { CreateProjectBody, ProjectSummaryView, ProjectView, UpdateProjectBody } from '#domain/projects/schemas.ts';
import { defineGroup, route } from '#http/action.ts';
import { publicBaseUrl } from '#http/base-url.ts';
import { created, ok, SuccessView, success } from '#http/responses.ts';

export const projects = defineGroup('projects', [
  route('GET /api/v1/projects', {
    doc: {
      operationId: 'listProjects',
      summary: "List the key owner's projects: all of them, or a page with ?limit (1-100) and ?cursor",
      responses: {
        200: z.strictObject({ projects: z.array(ProjectSummaryView), nextCursor: z.string().nullable().optional() }),
      },
    },
    query: PageQuery,
    // Without `limit` or `cursor`, every project (interface.md); with either, a page.
    run: async ({ principal, query, config, headers }) =>
      ok(
        query.limit === undefined && query.cursor === undefined
          ? { projects: await listProjects(principal.ownerId, publicBaseUrl(config, headers)) }
          : await listProjectsPage(principal.ownerId, query, publicBaseUrl(config, headers)),
      ),
  }),
  route('POST /api/v1/projects', {
    body: CreateProjectBody,
    doc: {
      operationId: 'createProject',
      summary: 'Create a project',
      description: 'The slug is derived from the name unless one is sent; a slug already taken is 409.',
      responses: { 201: ProjectView },
      errors: ['conflict'],
    },
    run: async ({ principal, body, ports, config, headers }) =>
      created(await createProject(ports.keyring, principal.ownerId, body, publicBaseUrl(config, headers))),
  }),
  route('GET /api/v1/projects/{slug}', {
    doc: {
      operationId: 'getProject',
      summary: 'Get a project with its features and plans',
      responses: { 200: ProjectView },
    },
    run: async ({ project, config, headers }) => ok(await getProject(project, publicBaseUrl(config, headers))),
  }),
  route('PUT /api/v1/projects/{slug}', {
    body: UpdateProjectBody,
    doc: {
      operationId: 'updateProject',
      summary: 'Update a project',
      description: 'Partial: only the fields sent change; `theme` merges into the stored theme.',
      responses: { 200: ProjectView },
      errors: ['conflict'],
    },
    run: async ({ project, body, ports, config, headers }) =>
      ok(await updateProject(ports.keyring, project, body, publicBaseUrl(config, headers))),
  }),
  route('DELETE /api/v1/projects/{slug}', {
    doc: {
      operationId: 'deleteProject',
      summary: 'Delete a project with its features and plans',
      responses: { 200: SuccessView },
    },
    run: async ({ project, ports }) => {
      await deleteProject(ports.sweeps, project);
      return success();
    },
  }),
]);
