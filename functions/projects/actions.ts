import * as z from 'zod';
import { ChangesView, listChanges } from '#domain/changes.ts';
import { PageQuery } from '#domain/pages.ts';
import { deleteProject } from '#domain/projects/delete.ts';
import { listProjectsPage } from '#domain/projects/list.ts';
import { createProject, getProject, listProjects, updateProject } from '#domain/projects/projects.ts';
import { CreateProjectBody, ProjectSummaryView, ProjectView, UpdateProjectBody } from '#domain/projects/schemas.ts';
import { defineGroup, routesIn } from '#http/action.ts';
import { publicBaseUrl } from '#http/base-url.ts';
import { tagged, writerOf } from '#http/etag.ts';
import { SuccessView, success } from '#http/responses.ts';
import { experimentActions } from './experiment-actions.ts';
import { projectsRoutes } from './routes.ts';
import { webhookEndpointActions } from './webhook-endpoint-actions.ts';

const route = routesIn(projectsRoutes);

export const projects = defineGroup(projectsRoutes, [
  route('GET /api/v1/projects', {
    doc: {
      operationId: 'listProjects',
      summary: "List the key owner's projects: all of them, or a page with ?limit (1-100) and ?cursor",
      responses: {
        200: () =>
          z.strictObject({ projects: z.array(ProjectSummaryView()), nextCursor: z.string().nullable().optional() }),
      },
      etag: 'read',
    },
    query: PageQuery,
    // Without `limit` or `cursor`, every project (the unpaged list its clients expect); with either, a page.
    run: async ({ principal, query, config, headers }) =>
      tagged(
        200,
        query.limit === undefined && query.cursor === undefined
          ? { projects: await listProjects(principal.ownerId, publicBaseUrl(config, headers)) }
          : await listProjectsPage(principal.ownerId, query, publicBaseUrl(config, headers)),
        headers,
      ),
  }),
  route('POST /api/v1/projects', {
    body: CreateProjectBody,
    doc: {
      operationId: 'createProject',
      summary: 'Create a project',
      description: 'The slug is derived from the name unless one is sent; a slug already taken is 409.',
      responses: { 201: ProjectView },
      etag: 'tagged',
      errors: ['conflict'],
    },
    run: async ({ principal, body, ports, config, headers }) =>
      tagged(
        201,
        await createProject(
          ports.keyring,
          principal.ownerId,
          body,
          publicBaseUrl(config, headers),
          writerOf(principal, headers),
        ),
      ),
  }),
  route('GET /api/v1/projects/{slug}', {
    doc: {
      operationId: 'getProject',
      summary: 'Get a project with its features and plans',
      responses: { 200: ProjectView },
      etag: 'read',
    },
    run: async ({ project, config, headers }) =>
      tagged(200, await getProject(project, publicBaseUrl(config, headers)), headers),
  }),
  route('PUT /api/v1/projects/{slug}', {
    body: UpdateProjectBody,
    doc: {
      operationId: 'updateProject',
      summary: 'Update a project',
      description: 'Partial: only the fields sent change; `theme` merges into the stored theme.',
      responses: { 200: ProjectView },
      etag: 'write',
      errors: ['conflict'],
    },
    run: async ({ project, body, ports, config, headers, principal }) =>
      tagged(
        200,
        await updateProject(ports.keyring, project, body, publicBaseUrl(config, headers), writerOf(principal, headers)),
      ),
  }),
  route('GET /api/v1/projects/{slug}/changes', {
    doc: {
      operationId: 'listChanges',
      summary: "A project's change log, newest first: one entry per write, kept 90 days",
      description:
        'Each entry: who (`keyId`), when, `action`, the `resource` and its stored fields `before` and `after`; write-only secrets read `"[set]"` or null. A page: `?limit` (1-100, default 50) and `?cursor` (the `nextCursor` of the page before).',
      responses: { 200: ChangesView },
      etag: 'read',
    },
    query: PageQuery,
    run: async ({ project, query, headers }) => tagged(200, await listChanges(project, query), headers),
  }),
  route('DELETE /api/v1/projects/{slug}', {
    doc: {
      operationId: 'deleteProject',
      summary: 'Delete a project with its features and plans',
      responses: { 200: SuccessView },
      etag: 'write',
    },
    run: async ({ project, ports, config, headers }) => {
      const ifMatch = headers['if-match'];
      const check =
        ifMatch === undefined ? undefined : { header: ifMatch, publicBaseUrl: publicBaseUrl(config, headers) };
      return success(deleteProject(ports.sweeps, project, check));
    },
  }),
  ...webhookEndpointActions,
  ...experimentActions,
]);
