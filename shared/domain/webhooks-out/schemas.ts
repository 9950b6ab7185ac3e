import * as z from 'zod';
import { webhookDeliveryStatuses, webhookEventTypes } from '#contract/enums.ts';
import { limits } from '#contract/limits.ts';
import { multiLineText } from '../fields.ts';
import { closestField } from '../suggest.ts';
import { lazySchema, strictObject } from '../validation.ts';

/** At most this many endpoints a project (lifecycle.md §4). */
export const ENDPOINTS_MAX = 10;

const eventType = lazySchema(() =>
  z.string().superRefine((value, context) => {
    if ((webhookEventTypes as readonly string[]).includes(value)) return;
    const nearest = closestField(value, webhookEventTypes);
    context.addIssue({
      code: 'custom',
      message: `unknown event type "${value.slice(0, 100)}"${nearest ? `; did you mean "${nearest}"?` : ''}`,
    });
  }),
);

export const CreateWebhookEndpointBody = lazySchema(() =>
  strictObject({
    url: z.string().max(limits.urlMax, `must be at most ${limits.urlMax} characters`),
    events: z
      .array(eventType())
      .min(1, 'must name at least one event type (leave it out for all of them)')
      .max(webhookEventTypes.length * 2)
      .optional(),
    description: multiLineText(1_000).optional(),
  }),
);
export type CreateWebhookEndpointBody = z.output<ReturnType<typeof CreateWebhookEndpointBody>>;

const endpointFields = lazySchema(() => ({
  id: z.number(),
  url: z.string(),
  events: z.array(z.enum(webhookEventTypes)),
  description: z.string(),
  createdAt: z.string(),
  /** When a receiver answered 410 Gone: nothing is sent to it any more; null while enabled. */
  disabledAt: z.string().nullable(),
}));

export const WebhookEndpointView = lazySchema(() => z.strictObject(endpointFields()));
export const CreatedWebhookEndpointView = lazySchema(() => z.strictObject({ ...endpointFields(), secret: z.string() }));
export const WebhookEndpointsView = lazySchema(() =>
  z.strictObject({ webhookEndpoints: z.array(WebhookEndpointView()) }),
);
export const WebhookSecretView = lazySchema(() => z.strictObject({ secret: z.string() }));

export const WebhookDeliveryView = lazySchema(() =>
  z.strictObject({
    id: z.string(),
    eventId: z.string(),
    type: z.enum(webhookEventTypes),
    status: z.enum(webhookDeliveryStatuses),
    attempts: z.number(),
    lastResponseStatus: z.number().nullable(),
    lastAttemptAt: z.string().nullable(),
  }),
);
export const WebhookDeliveriesView = lazySchema(() =>
  z.strictObject({
    deliveries: z.array(WebhookDeliveryView()),
    nextCursor: z.string().nullable(),
  }),
);
export const AcceptedView = lazySchema(() => z.strictObject({ accepted: z.literal(true) }));
