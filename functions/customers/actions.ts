import * as z from 'zod';
import {
  deleteCustomer,
  getCustomer,
  getEntitlement,
  getEntitlements,
  grantPlan,
  listCustomers,
} from '#domain/customers/customers.ts';
import {
  CustomerListView,
  CustomerView,
  EntitlementQuery,
  EntitlementsView,
  EntitlementView,
  GrantBody,
  ListCustomersQuery,
} from '#domain/customers/schemas.ts';
import { consume } from '#domain/usage/consume.ts';
import { recordEvents } from '#domain/usage/record.ts';
import { ConsumeBody, ConsumeResultView, EventsBody, EventsResultView } from '#domain/usage/schemas.ts';
import { defineGroup, routesIn } from '#http/action.ts';
import { ok, SuccessView, success } from '#http/responses.ts';
import type { RuntimeConfig } from '#shared/config.ts';
import { customersRoutes } from './routes.ts';
import { subscriptionActions } from './subscription-actions.ts';

const reads = (config: RuntimeConfig) => ({ cacheTtlMs: config.PROJECT_CACHE_TTL_SECONDS * 1000 });

/** The customers API: who bought what, and what each customer may use now. */
const route = routesIn(customersRoutes);

export const customers = defineGroup(customersRoutes, [
  route('GET /api/v1/projects/{slug}/customers', {
    query: ListCustomersQuery,
    doc: {
      operationId: 'listCustomers',
      summary: "A page of the project's customers, by customer id",
      responses: { 200: CustomerListView },
    },
    run: async ({ project, query, config }) => ok(await listCustomers(project, query, reads(config))),
  }),
  route('GET /api/v1/projects/{slug}/customers/{customerId}', {
    doc: {
      operationId: 'getCustomer',
      summary: 'A customer and its subscription',
      responses: { 200: CustomerView },
    },
    run: async ({ project, path, config }) => ok(await getCustomer(project, path.customerId, reads(config))),
  }),
  route('PUT /api/v1/projects/{slug}/customers/{customerId}', {
    body: GrantBody,
    doc: {
      operationId: 'grantPlan',
      summary: 'Grant a customer a plan by hand (no Stripe subscription)',
      responses: { 200: CustomerView },
    },
    run: async ({ project, path, body }) => ok(await grantPlan(project, path.customerId, body)),
  }),
  route('DELETE /api/v1/projects/{slug}/customers/{customerId}', {
    doc: { operationId: 'deleteCustomer', summary: 'Forget a customer', responses: { 200: SuccessView } },
    run: async ({ project, path }) => success(deleteCustomer(project, path.customerId)),
  }),
  route('GET /api/v1/projects/{slug}/customers/{customerId}/entitlements', {
    doc: {
      operationId: 'getEntitlements',
      summary: 'What a customer may use now: every feature of the project',
      responses: { 200: EntitlementsView },
    },
    run: async ({ project, path, config }) => ok(await getEntitlements(project, path.customerId, reads(config))),
  }),
  route('GET /api/v1/projects/{slug}/customers/{customerId}/entitlements/{featureId}', {
    query: EntitlementQuery,
    doc: {
      operationId: 'getEntitlement',
      summary: 'One feature for a customer; with ?required=, whether that much is allowed',
      responses: { 200: () => EntitlementView().extend({ allowed: z.boolean() }) },
    },
    run: async ({ project, path, query, config }) =>
      ok(await getEntitlement(project, path.customerId, path.featureId, query.required, reads(config))),
  }),
  route('POST /api/v1/projects/{slug}/customers/{customerId}/entitlements/{featureId}/consume', {
    body: ConsumeBody,
    doc: {
      operationId: 'consume',
      summary: 'Check and consume in one call: allowed and recorded, or refused and nothing recorded',
      description:
        'Records `amount` (default 1) of a count or sum feature as a usage event with this `eventId` ' +
        "if the customer has access and the month's usage plus `amount` stays within the limit; " +
        'otherwise answers `allowed: false` and records nothing, so the event id may be sent again later. ' +
        'Exact under any number of concurrent callers. A resent event id (or one counted through ' +
        '/events) answers allowed again and records nothing. `entitlement` is the feature as it stands ' +
        "after the call, in the event's UTC month.",
      responses: { 200: ConsumeResultView },
    },
    run: async ({ project, path, body, config }) =>
      ok(await consume(project, path.customerId, path.featureId, body, reads(config))),
  }),
  route('POST /api/v1/projects/{slug}/events', {
    body: EventsBody,
    doc: {
      operationId: 'recordEvents',
      summary: 'Send usage events (1 to 1,000): each event id counts once',
      description:
        "Aggregated per customer, feature and UTC month by the feature's eventAggregationMethod. " +
        'A batch is all or nothing for validation (a 400 names each bad event by its index and stores ' +
        'nothing); an event id seen in the last 35 days, or earlier in the batch, is a duplicate, so a ' +
        'batch cut short or answered with a 5xx is safe to resend as it was. A 503 `unavailable` (with ' +
        'Retry-After) says concurrent senders of the same customer and feature kept its writes from ' +
        'committing in time: part of the batch may be counted; resend it as it was.',
      responses: { 200: EventsResultView },
    },
    run: async ({ project, body, config }) =>
      ok(await recordEvents(project, body, { ...reads(config), retryMs: config.USAGE_RETRY_MS })),
  }),
  ...subscriptionActions,
]);
