import {
  deleteCustomer,
  getCustomer,
  getEntitlement,
  getEntitlements,
  grantPlan,
  listCustomers,
} from '#domain/customers/customers.ts';
import { EntitlementQuery, GrantBody, ListCustomersQuery } from '#domain/customers/schemas.ts';
import { defineGroup, route } from '#http/action.ts';
import { ok, success } from '#http/responses.ts';
import type { RuntimeConfig } from '#shared/config.ts';

const reads = (config: RuntimeConfig) => ({ cacheTtlMs: config.PROJECT_CACHE_TTL_SECONDS * 1000 });

/** billing.md's Customers API: who bought what, and what each customer may use now. */
export const customers = defineGroup('customers', [
  route('GET /api/v1/projects/{slug}/customers', {
    query: ListCustomersQuery,
    run: async ({ project, query, config }) => ok(await listCustomers(project, query, reads(config))),
  }),
  route('GET /api/v1/projects/{slug}/customers/{customerId}', {
    run: async ({ project, path, config }) => ok(await getCustomer(project, path.customerId, reads(config))),
  }),
  route('PUT /api/v1/projects/{slug}/customers/{customerId}', {
    body: GrantBody,
    run: async ({ project, path, body }) => ok(await grantPlan(project, path.customerId, body)),
  }),
  route('DELETE /api/v1/projects/{slug}/customers/{customerId}', {
    run: async ({ project, path }) => {
      await deleteCustomer(project, path.customerId);
      return success();
    },
  }),
  route('GET /api/v1/projects/{slug}/customers/{customerId}/entitlements', {
    run: async ({ project, path, config }) => ok(await getEntitlements(project, path.customerId, reads(config))),
  }),
  route('GET /api/v1/projects/{slug}/customers/{customerId}/entitlements/{featureId}', {
    query: EntitlementQuery,
    run: async ({ project, path, query, config }) =>
      ok(await getEntitlement(project, path.customerId, path.featureId, query.required, reads(config))),
  }),
]);
