import type { EntityItem } from 'electrodb';
import { defineEntity, entityModel } from './model.ts';
import { idAttribute, projectScopeAttributes, projectScopeIndexes } from './project-scope.ts';

/**
 * The head of a project's feature list: one small item per project, present exactly while the
 * project is (written and deleted in the project's own transactions), carrying the project's
 * share id. Its sort key (`$projectData#featureHead_1`) sorts just before the features
 * (`$projectData#feature_1#…`), so one Query of that key range reads the features and learns,
 * in the same request, that the project is there and which items are its own (a deleted
 * project's items wait for their sweep in the same partition, with another share id).
 */
export const featureHeadEntity = defineEntity({
  model: entityModel('featureHead'),
  attributes: {
    ...projectScopeAttributes,
    projectId: idAttribute,
    // How many features were ever deleted: every feature delete adds 1 in its transaction, and
    // every write that assigns features checks it is still what it read beside the features,
    // so no assignment of a feature can commit after the feature's delete (one check, not one
    // per feature).
    featureDeletes: { type: 'number', required: true, default: 0 },
  },
  indexes: projectScopeIndexes([]),
});

export type FeatureHeadItem = EntityItem<ReturnType<typeof featureHeadEntity>>;
