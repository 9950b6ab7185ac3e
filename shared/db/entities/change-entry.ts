import type { CreateEntityItem, EntityItem } from 'electrodb';
import { changeActions, changeResourceTypes } from '#contract/enums.ts';
import { defineEntity, entityModel } from './model.ts';
import { idAttribute } from './project-scope.ts';

/**
 * One entry of a project's change log, written in the
 * same transaction as the write it records. Entries live outside the project's partition, in
 * one partition per project keyed by the project id and sorted by entry id, so the project's
 * one-Query reads never read them however long the log grows, and a page of the log (newest
 * first) is one Query. The table's TTL removes an entry after `expiresAt` (90 days); the
 * project sweep deletes the rest with the project (shared/db/changes.ts).
 */
export const changeEntryEntity = defineEntity({
  model: entityModel('changeEntry'),
  attributes: {
    projectId: idAttribute,
    changeId: idAttribute,
    at: { type: 'string', required: true, readOnly: true },
    keyId: { type: 'string', required: true, readOnly: true },
    action: { type: changeActions, required: true, readOnly: true },
    resourceType: { type: changeResourceTypes, required: true, readOnly: true },
    resourceId: { type: 'number', required: true, readOnly: true },
    // The resource's stored fields before and after (null for a create's before, a delete's
    // after), with write-only secrets already masked by the domain.
    before: { type: 'any' },
    after: { type: 'any' },
    /** Epoch seconds: the table's TTL attribute. */
    expiresAt: { type: 'number', required: true },
  },
  indexes: {
    byProject: {
      // Not under the payment records' prefix (table.ts): the payments function may not read the log.
      pk: {
        field: 'pk',
        composite: ['projectId'],
        // biome-ignore lint/suspicious/noTemplateCurlyInString: ElectroDB's key template syntax.
        template: '$pricing#changeLog#projectId_${projectId}',
        casing: 'none',
      },
      sk: { field: 'sk', composite: ['changeId'], casing: 'none' },
    },
  },
});

export type ChangeEntryItem = EntityItem<ReturnType<typeof changeEntryEntity>>;
export type NewChangeEntryItem = CreateEntityItem<ReturnType<typeof changeEntryEntity>>;
