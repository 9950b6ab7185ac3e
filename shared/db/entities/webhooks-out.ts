import type { CreateEntityItem, EntityItem } from 'electrodb';
import { webhookDeliveryStatuses } from '#contract/enums.ts';
import { defineEntity, entityModel } from './model.ts';
import { idAttribute } from './project-scope.ts';

/**
 * The webhooks a project sends to its owner's app (lifecycle.md §4) live in one partition per
 * project keyed by the project id, apart from the project's own partition (its reads never
 * page through deliveries) and from the payment records' prefix (table.ts). The project
 * sweep deletes the partition with a Query of it (shared/db/webhooks-out.ts).
 */
const partition = {
  field: 'pk',
  composite: ['projectId'],
  // biome-ignore lint/suspicious/noTemplateCurlyInString: ElectroDB's key template syntax.
  template: '$pricing#webhooksOut#projectId_${projectId}',
  casing: 'none',
} as const;

/**
 * An endpoint, keyed by its slot (0-9): a create takes a free slot with a conditional put, so
 * at most ten exist however many creates race, with no count item to keep in step.
 */
export const webhookEndpointEntity = defineEntity({
  model: entityModel('webhookEndpoint'),
  attributes: {
    projectId: idAttribute,
    slot: { type: 'number', required: true, readOnly: true },
    endpointId: { type: 'number', required: true, readOnly: true },
    url: { type: 'string', required: true },
    events: { type: 'list', items: { type: 'string' }, required: true },
    description: { type: 'string', required: true },
    // The signing secret, sealed by the keyring like the payment keys; never returned after its create.
    secretSealed: { type: 'string', required: true },
    // Set when a receiver answered 410 Gone: no delivery is attempted any more.
    disabledAt: { type: 'string' },
    createdAt: { type: 'string', required: true, readOnly: true },
  },
  indexes: {
    byProject: {
      pk: partition,
      // biome-ignore lint/suspicious/noTemplateCurlyInString: ElectroDB's key template syntax.
      sk: { field: 'sk', composite: ['slot'], casing: 'none', template: 'endpoint_${slot}' },
    },
  },
});

/**
 * The outbox: one event, put by the very transaction of the change it reports, so a change
 * never commits without its event. The table's stream hands it to the dispatcher (locally,
 * the local runner), which turns it into one delivery per subscribed endpoint and deletes it.
 * A `resend` is the outbox item of a manual retry: it names the delivery to send again. A
 * `due` item sends nothing itself: it is put with a change that takes effect later (a manual
 * subscription's plan at its period end), and its dispatch sets a wake-up for that time, when
 * the change is written with its own event (shared/domain/customers/settle.ts).
 */
export const webhookEventEntity = defineEntity({
  model: entityModel('webhookEvent'),
  attributes: {
    projectId: idAttribute,
    eventId: { type: 'string', required: true, readOnly: true },
    type: { type: 'string', required: true, readOnly: true },
    // The JSON body every endpoint receives, exactly as signed.
    body: { type: 'string', required: true, readOnly: true },
    resend: {
      type: 'map',
      properties: { endpointId: { type: 'number', required: true }, eventId: { type: 'string', required: true } },
    },
    due: {
      type: 'map',
      properties: {
        ownerId: { type: 'string', required: true },
        slug: { type: 'string', required: true },
        customerId: { type: 'string', required: true },
        // ISO instant the change takes effect.
        at: { type: 'string', required: true },
      },
    },
  },
  indexes: {
    byProject: {
      pk: partition,
      // biome-ignore lint/suspicious/noTemplateCurlyInString: ElectroDB's key template syntax.
      sk: { field: 'sk', composite: ['eventId'], casing: 'none', template: 'event_${eventId}' },
    },
  },
});

/**
 * One event's delivery to one endpoint. Event ids rise with time, so an endpoint's
 * deliveries read newest first in one descending Query. The table's TTL removes a delivery
 * 30 days after its event.
 */
export const webhookDeliveryEntity = defineEntity({
  model: entityModel('webhookDelivery'),
  attributes: {
    projectId: idAttribute,
    endpointId: idAttribute,
    eventId: { type: 'string', required: true, readOnly: true },
    type: { type: 'string', required: true, readOnly: true },
    body: { type: 'string', required: true, readOnly: true },
    status: { type: webhookDeliveryStatuses, required: true },
    attempts: { type: 'number', required: true },
    lastResponseStatus: { type: 'number' },
    lastAttemptAt: { type: 'string' },
    /** Epoch seconds: the table's TTL attribute. */
    expiresAt: { type: 'number', required: true },
  },
  indexes: {
    byEndpoint: {
      pk: partition,
      sk: {
        field: 'sk',
        composite: ['endpointId', 'eventId'],
        casing: 'none',
        // biome-ignore lint/suspicious/noTemplateCurlyInString: ElectroDB's key template syntax.
        template: 'delivery_${endpointId}#${eventId}',
      },
    },
  },
});

/**
 * One of an endpoint's delivery slots, held while an attempt to it is in flight: an attempt
 * takes a free slot (absent, or held past `until`) with a conditional put and frees it
 * after, so at most as many attempts as the endpoint has slots run at once, across every
 * function instance. A holder that crashed frees its slot by `until`; TTL removes it.
 */
export const webhookLeaseEntity = defineEntity({
  model: entityModel('webhookLease'),
  attributes: {
    projectId: idAttribute,
    endpointId: idAttribute,
    slot: { type: 'number', required: true, readOnly: true },
    holder: { type: 'string', required: true },
    /** Epoch ms: past it the slot is free again. */
    until: { type: 'number', required: true },
    /** Epoch seconds: the table's TTL attribute. */
    expiresAt: { type: 'number', required: true },
  },
  indexes: {
    byEndpoint: {
      pk: partition,
      sk: {
        field: 'sk',
        composite: ['endpointId', 'slot'],
        casing: 'none',
        // biome-ignore lint/suspicious/noTemplateCurlyInString: ElectroDB's key template syntax.
        template: 'lease_${endpointId}#${slot}',
      },
    },
  },
});

export type WebhookEndpointItem = EntityItem<ReturnType<typeof webhookEndpointEntity>>;
export type NewWebhookEndpointItem = CreateEntityItem<ReturnType<typeof webhookEndpointEntity>>;
export type WebhookEventItem = EntityItem<ReturnType<typeof webhookEventEntity>>;
export type NewWebhookEventItem = CreateEntityItem<ReturnType<typeof webhookEventEntity>>;
export type WebhookDeliveryItem = EntityItem<ReturnType<typeof webhookDeliveryEntity>>;
