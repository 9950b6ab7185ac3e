import type { CreateEntityItem, EntityItem } from 'electrodb';
import { defineEntity, entityModel } from './model.ts';
import { idAttribute, timestamps } from './project-scope.ts';

/**
 * A project's end customer and its one subscription. Customers live outside the project's
 * partition, in one partition per project keyed by the project id and sorted by customer id,
 * so a project's v1 reads stay one Query however many customers it has, a customer is one
 * GetItem, and a page of the list (in byte order of `customerId`) is one Query. The project
 * sweep deletes them with a Query of this partition (shared/db/customers.ts).
 */
export const customerEntity = defineEntity({
  model: entityModel('customer'),
  attributes: {
    projectId: idAttribute,
    customerId: { type: 'string', required: true, readOnly: true },
    email: { type: 'string' },
    stripeCustomerId: { type: 'string' },
    // The subscription as the domain shapes it (shared/domain/customers/schemas.ts), or absent.
    subscription: { type: 'any' },
    // The Stripe event ids already applied to this customer, newest last, a bounded list: what
    // makes a redelivered event change nothing. Written in the same conditional put as the
    // change the event made.
    eventIds: { type: 'list', items: { type: 'string' } },
    // Set while a plan change waits on Stripe (epoch ms it lapses at): a concurrent change is a
    // 409 and the subscription's webhooks wait (shared/domain/subscriptions/changes.ts).
    changingUntil: { type: 'number' },
    // Optimistic lock: every write names the version it read.
    version: { type: 'number', required: true },
    ...timestamps,
  },
  indexes: {
    byProject: {
      pk: { field: 'pk', composite: ['projectId'], casing: 'none' },
      sk: { field: 'sk', composite: ['customerId'], casing: 'none' },
    },
  },
});

export type CustomerItem = EntityItem<ReturnType<typeof customerEntity>>;
export type NewCustomerItem = CreateEntityItem<ReturnType<typeof customerEntity>>;
