import type { CreateEntityItem, EntityItem } from 'electrodb';
import { experimentStatuses } from '#contract/enums.ts';
import { defineEntity, entityModel } from './model.ts';
import { idAttribute, projectScopeAttributes, projectScopeIndexes, timestamps } from './project-scope.ts';

/**
 * Pricing experiments (lifecycle.md §5). The experiment itself lives in the project's
 * partition, so the share read (one Query on byShareId) and checkout find the running one
 * without a request more; its counts live outside it (`experimentMark`, `experimentTally`),
 * so a page's traffic never grows the partition the project's reads page through.
 */
export const experimentEntity = defineEntity({
  model: entityModel('experiment'),
  attributes: {
    ...projectScopeAttributes,
    experimentId: idAttribute,
    name: { type: 'string', required: true },
    status: { type: experimentStatuses, required: true },
    // [{key, weight, plans: [{planId, basePrice?, freemiumDay?, isVisible?}]}], 2 to 4 of them.
    variants: { type: 'any', required: true },
    startedAt: { type: 'string' },
    stoppedAt: { type: 'string' },
    ...timestamps,
  },
  indexes: projectScopeIndexes(['experimentId']),
});

/**
 * The one running experiment of a project: created by a start and deleted by its stop, each
 * in the transaction that moves the experiment's status, so a second start fails its
 * condition (409) however concurrent the two starts are.
 */
export const experimentSlotEntity = defineEntity({
  model: entityModel('experimentSlot'),
  attributes: {
    ...projectScopeAttributes,
    experimentId: { type: 'number', required: true },
  },
  indexes: projectScopeIndexes([]),
});

/**
 * The counts of a project's experiments are spread over `TALLY_SHARDS` partitions of the
 * project (`$pricing#projectId_…#tallyShard_…`, under the payment records' prefix, so the
 * public payments function may write them and nothing else), by a hash of what is counted:
 * no partition and no item takes more than its share of a page's views.
 */
export const TALLY_SHARDS = 16;

const tallyPk = { field: 'pk', composite: ['projectId', 'tallyShard'], casing: 'none' } as const;

/**
 * One marker per thing counted once: a visitor, a checkout session, a paid subscription of an
 * experiment. Created on the condition that it is absent, in the transaction that adds 1 to
 * its tally, so a thing is counted once whatever is resent or raced.
 */
export const experimentMarkEntity = defineEntity({
  model: entityModel('experimentMark'),
  attributes: {
    projectId: idAttribute,
    tallyShard: { type: 'number', required: true, readOnly: true },
    experimentId: idAttribute,
    kind: { type: ['visitor', 'checkout', 'subscription'] as const, required: true, readOnly: true },
    // The visitor id, the Stripe session id or the Stripe subscription id (case kept).
    ref: { type: 'string', required: true, readOnly: true },
    variant: { type: 'string', required: true },
  },
  indexes: {
    byShard: {
      pk: tallyPk,
      sk: { field: 'sk', composite: ['experimentId', 'kind', 'ref'], casing: 'none' },
    },
  },
});

/** One shard of a variant's counts: the results add the shards up. */
export const experimentTallyEntity = defineEntity({
  model: entityModel('experimentTally'),
  attributes: {
    projectId: idAttribute,
    tallyShard: { type: 'number', required: true, readOnly: true },
    experimentId: idAttribute,
    variant: { type: 'string', required: true, readOnly: true },
    visitors: { type: 'number' },
    checkouts: { type: 'number' },
    subscriptions: { type: 'number' },
    // The monthly price of the paid subscriptions, in major units (DynamoDB adds decimals exactly).
    mrr: { type: 'number' },
  },
  indexes: {
    byShard: {
      pk: tallyPk,
      sk: { field: 'sk', composite: ['experimentId', 'variant'], casing: 'none' },
    },
  },
});

export type ExperimentItem = EntityItem<ReturnType<typeof experimentEntity>>;
export type NewExperimentItem = CreateEntityItem<ReturnType<typeof experimentEntity>>;
export type ExperimentTallyItem = EntityItem<ReturnType<typeof experimentTallyEntity>>;
