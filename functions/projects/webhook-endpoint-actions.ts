import { PageQuery } from '#domain/pages.ts';
import { listDeliveries, retryDelivery } from '#domain/webhooks-out/deliveries.ts';
import {
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  listWebhookEndpoints,
  rotateWebhookSecret,
} from '#domain/webhooks-out/endpoints.ts';
import {
  AcceptedView,
  CreatedWebhookEndpointView,
  CreateWebhookEndpointBody,
  WebhookDeliveriesView,
  WebhookEndpointsView,
  WebhookSecretView,
} from '#domain/webhooks-out/schemas.ts';
import { routesIn } from '#http/action.ts';
import { writerOf } from '#http/etag.ts';
import { ok, SuccessView, success } from '#http/responses.ts';
import { projectsRoutes } from './routes.ts';

const route = routesIn(projectsRoutes);

/** The project's webhook endpoints, their deliveries and retries (lifecycle.md §4). */
export const webhookEndpointActions = [
  route('GET /api/v1/projects/{slug}/webhook-endpoints', {
    doc: {
      operationId: 'listWebhookEndpoints',
      summary: "The project's webhook endpoints, without their secrets",
      responses: { 200: WebhookEndpointsView },
    },
    run: async ({ project }) => ok(await listWebhookEndpoints(project)),
  }),
  route('POST /api/v1/projects/{slug}/webhook-endpoints', {
    body: CreateWebhookEndpointBody,
    doc: {
      operationId: 'createWebhookEndpoint',
      summary: 'Add a webhook endpoint (at most 10 a project); its signing secret is shown only here',
      description:
        '`url`: absolute https, at most 2,048 characters, not a private, loopback or link-local host. `events`: the types it receives (all when left out). Deliveries are signed as Standard Webhooks specifies.',
      responses: { 201: CreatedWebhookEndpointView },
      errors: ['limit_exceeded'],
    },
    run: async ({ project, body, ports, config, principal, headers }) =>
      ok(
        await createWebhookEndpoint(ports.keyring, project, body, config.WEBHOOK_URLS, writerOf(principal, headers)),
        201,
      ),
  }),
  route('DELETE /api/v1/projects/{slug}/webhook-endpoints/{endpointId}', {
    doc: {
      operationId: 'deleteWebhookEndpoint',
      summary: 'Delete a webhook endpoint: nothing more is sent to it',
      responses: { 200: SuccessView },
    },
    run: async ({ project, path, principal, headers }) =>
      success(deleteWebhookEndpoint(project, path.endpointId, writerOf(principal, headers))),
  }),
  route('POST /api/v1/projects/{slug}/webhook-endpoints/{endpointId}/rotate-secret', {
    doc: {
      operationId: 'rotateWebhookSecret',
      summary: 'A new signing secret, shown only here',
      description: 'Every later attempt, resends of older events included, is signed with the new secret only.',
      responses: { 200: WebhookSecretView },
    },
    run: async ({ project, path, ports, principal, headers }) =>
      ok(await rotateWebhookSecret(ports.keyring, project, path.endpointId, writerOf(principal, headers))),
  }),
  route('GET /api/v1/projects/{slug}/webhook-endpoints/{endpointId}/deliveries', {
    query: PageQuery,
    doc: {
      operationId: 'listWebhookDeliveries',
      summary:
        "An endpoint's deliveries, newest first, kept 30 days: a page with ?limit (1-100, default 50) and ?cursor",
      responses: { 200: WebhookDeliveriesView },
    },
    run: async ({ project, path, query }) => ok(await listDeliveries(project, path.endpointId, query)),
  }),
  route('POST /api/v1/projects/{slug}/webhook-endpoints/{endpointId}/deliveries/{deliveryId}/retry', {
    doc: {
      operationId: 'retryWebhookDelivery',
      summary: 'Send a delivery again now, whatever its status (409 when the endpoint is disabled)',
      responses: { 202: AcceptedView },
    },
    run: async ({ project, path }) => {
      await retryDelivery(project, path.endpointId, path.deliveryId);
      return ok({ accepted: true }, 202);
    },
  }),
] as const;
