import type { EntityItem } from 'electrodb';
import { defineEntity, entityModel } from './model.ts';
import { idAttribute } from './project-scope.ts';

/**
 * A deleted project whose items are still being swept: the project item is replaced by this
 * record in the delete's own transaction, so the project is gone from every read (and its
 * slug free) at once, while this record keeps what the sweep needs to find the rest.
 *
 * A project's items are keyed by owner + slug, and a slug can be taken again at once: the
 * sweep tells the deleted project's items from a newer project's by the share id every item
 * carries (random, never reused), never by the partition alone.
 *
 * All pending sweeps share one partition, so resuming them (a local start-up, the stage's
 * periodic check) is one Query; deletes are rare enough for one partition.
 */
export const projectSweepEntity = defineEntity({
  model: entityModel('projectSweep'),
  attributes: {
    projectId: idAttribute,
    ownerId: { type: 'string', required: true, readOnly: true },
    slug: { type: 'string', required: true, readOnly: true },
    shareId: { type: 'string', required: true, readOnly: true },
    deletedAt: { type: 'string', required: true, readOnly: true },
  },
  indexes: {
    pending: {
      pk: { field: 'pk', composite: [], casing: 'none' },
      sk: { field: 'sk', composite: ['projectId'], casing: 'none' },
    },
  },
});

export type ProjectSweepItem = EntityItem<ReturnType<typeof projectSweepEntity>>;
