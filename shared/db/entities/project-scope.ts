import { KEY_LAYOUT } from './model.ts';

/**
 * Every item that belongs to a project (the project itself, its features, plans and plan
 * features) lives in one partition keyed by owner + slug, and carries the project's share
 * id for the byShareId index. That is what makes both reads one Query:
 * - API v1 (`projectData` collection): the owner and slug come from the key and the path.
 * - The public share endpoint (`share` collection on gsi1): only the share id is known.
 * Slugs are immutable, so the partition key never moves.
 */
export const projectScopeAttributes = {
  ownerId: { type: 'string', required: true, readOnly: true },
  slug: { type: 'string', required: true, readOnly: true },
  shareId: { type: 'string', required: true, readOnly: true },
} as const;

/**
 * The table sort key of a project's item, as an ElectroDB key template: the one ElectroDB
 * builds itself (`$projectData#<entity>_1#<composite>_<value>…`), spelled out so that an
 * entity can be keyed under another's prefix. ElectroDB takes templates on the table index
 * of a collection from every member or none, so every member spells its key out; the keys
 * of all but the plan are the ones ElectroDB built before (tests/unit/entity-keys.test.ts).
 */
const sortKeyTemplate = (entity: string, composites: readonly string[]) =>
  `$projectData#${entity}_${KEY_LAYOUT}${composites.map((name) => `#${name}_\${${name}}`).join('')}`;

/**
 * Owner ids and share ids are case-sensitive, so ElectroDB must not lower-case the keys.
 * `keyedAs` is the entity whose sort-key prefix the item's table key takes (by default its
 * own): a plan is keyed as its assignments' prefix, so one Query reads the plan and them.
 */
export function projectScopeIndexes<const Sk extends readonly string[]>(entity: string, sortKey: Sk, keyedAs = entity) {
  return {
    projectData: {
      collection: 'projectData',
      pk: { field: 'pk', composite: ['ownerId', 'slug'], casing: 'none' },
      sk: { field: 'sk', composite: sortKey, template: sortKeyTemplate(keyedAs, sortKey), casing: 'none' },
    },
    byShareId: {
      index: 'gsi1',
      collection: 'share',
      pk: { field: 'gsi1pk', composite: ['shareId'], casing: 'none' },
      sk: { field: 'gsi1sk', composite: sortKey, casing: 'none' },
    },
  } as const;
}

/** byOwner (gsi2): an owner's items of one entity (projects, API keys), in `sortKey` order. */
export function ownerIndex<const Sk extends readonly string[]>(sortKey: Sk) {
  return {
    index: 'gsi2',
    pk: { field: 'gsi2pk', composite: ['ownerId'], casing: 'none' },
    sk: { field: 'gsi2sk', composite: sortKey, casing: 'none' },
  } as const;
}

/** Ids sort as numbers inside keys. */
export const idAttribute = {
  type: 'number',
  required: true,
  readOnly: true,
  padding: { length: 12, char: '0' },
} as const;

export const timestamps = {
  createdAt: { type: 'string', required: true, readOnly: true },
  updatedAt: { type: 'string', required: true },
} as const;
