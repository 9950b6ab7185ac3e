import * as z from 'zod';
import { customerIdPattern } from '../customers/customer-id.ts';
import { EntitlementView } from '../customers/schemas.ts';
import { positiveId } from '../fields.ts';
import { lazySchema, strictObject } from '../validation.ts';
import { usageLimits } from './limits.ts';

// DynamoDB stores strings as UTF-8, which a lone surrogate cannot be.
const storable = (max: number) =>
  z
    .string()
    .min(1)
    .max(max)
    .refine((value) => !/\p{Cs}/u.test(value), 'must be valid Unicode: it holds a lone surrogate');

const isoDateTime = lazySchema(() => z.iso.datetime({ offset: true }));

const timestamp = lazySchema(() =>
  z
    .string()
    .refine(
      (value) => isoDateTime().safeParse(value).success,
      'must be an ISO 8601 date-time, e.g. 2026-11-23T10:00:00Z',
    )
    .meta({ description: 'ISO 8601 date-time with Z or an offset; default now' }),
);

export const UsageEventBody = lazySchema(() =>
  strictObject({
    eventId: storable(usageLimits.eventIdMax),
    customerId: z.string().regex(customerIdPattern, 'must be 1-128 characters of letters, digits and . _ : @ -'),
    featureId: positiveId(),
    value: z
      .number()
      .refine(
        (v) => Math.abs(v) <= usageLimits.valueMax,
        `must be between -${usageLimits.valueMax} and ${usageLimits.valueMax}`,
      )
      .refine(
        (v) => v === 0 || Math.abs(v) >= usageLimits.valueSmallest,
        `must be 0 or at least ${usageLimits.valueSmallest} in size`,
      )
      .optional(),
    property: storable(usageLimits.propertyMax).optional(),
    timestamp: timestamp().optional(),
  }),
);
export type UsageEventBody = z.infer<ReturnType<typeof UsageEventBody>>;

export const EventsBody = lazySchema(() =>
  strictObject({
    events: z.array(UsageEventBody()).min(1).max(usageLimits.eventsPerBatch),
  }),
);
export type EventsBody = z.infer<ReturnType<typeof EventsBody>>;

export const EventsResultView = lazySchema(() =>
  z.strictObject({
    accepted: z.number().int(),
    duplicates: z.number().int(),
  }),
);
export type EventsResultView = z.infer<ReturnType<typeof EventsResultView>>;

export const ConsumeBody = lazySchema(() =>
  strictObject({
    eventId: storable(usageLimits.eventIdMax),
    amount: z
      .number()
      .refine(
        (v) => v >= usageLimits.valueSmallest && v <= usageLimits.amountMax,
        `must be a number from ${usageLimits.valueSmallest} to ${usageLimits.amountMax}`,
      )
      .meta({ description: 'How much to consume; default 1 (a count feature takes 1 only)' })
      .optional(),
    timestamp: timestamp().optional(),
  }),
);
export type ConsumeBody = z.infer<ReturnType<typeof ConsumeBody>>;

export const ConsumeResultView = lazySchema(() =>
  z.strictObject({ allowed: z.boolean(), entitlement: EntitlementView() }),
);
export type ConsumeResultView = z.infer<ReturnType<typeof ConsumeResultView>>;
