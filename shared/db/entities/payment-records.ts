import { defineEntity, entityModel } from './model.ts';
import { idAttribute } from './project-scope.ts';

/**
 * What the public payment routes keep about a project, outside its own partition: the
 * window of its rate limit and the checkout sessions it created. Both live in one partition
 * per project id (`$pricing#projectId_…`), which no other entity uses, so the payments
 * function may write there and nowhere else (an IAM `dynamodb:LeadingKeys` condition, see
 * shared/function-specs.ts). Neither is read with the project nor swept with it: project ids are
 * never reused, and every item expires through the table's TTL attribute (`expiresAt`).
 */
const paymentRecordsPk = { field: 'pk', composite: ['projectId'], casing: 'none' } as const;

/**
 * One item per window a project's calls count in (`scope`: the whole project, or one client
 * address): the counts of the window (attributes named after each second, written by
 * shared/db/rate-limits.ts with expressions ElectroDB cannot build).
 */
export const rateLimitEntity = defineEntity({
  model: entityModel('rateLimit'),
  attributes: {
    projectId: idAttribute,
    // Client addresses are case-insensitive (IPv6 hex) but arrive in one spelling per source.
    scope: { type: 'string', required: true, readOnly: true },
    expiresAt: { type: 'number' },
  },
  indexes: {
    byProject: { pk: paymentRecordsPk, sk: { field: 'sk', composite: ['scope'], casing: 'none' } },
  },
});

/** A checkout session this service created for the project: receipts are served for these only. */
export const checkoutSessionEntity = defineEntity({
  model: entityModel('checkoutSession'),
  attributes: {
    projectId: idAttribute,
    // Stripe ids are case-sensitive: the key keeps the case.
    sessionId: { type: 'string', required: true, readOnly: true },
    createdAt: { type: 'string', required: true, readOnly: true },
    expiresAt: { type: 'number', required: true },
  },
  indexes: {
    byProject: { pk: paymentRecordsPk, sk: { field: 'sk', composite: ['sessionId'], casing: 'none' } },
  },
});
