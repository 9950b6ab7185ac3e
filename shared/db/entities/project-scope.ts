/**
 * Every item that belongs to a project (the project itself, its feature head, features and
 * plans) lives in one partition keyed by owner + slug, and carries the project's share
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

/** Owner ids and share ids are case-sensitive, so ElectroDB must not lower-case the keys. */
export function projectScopeIndexes<const Sk extends readonly string[]>(sortKey: Sk) {
  return {
    projectData: {
      collection: 'projectData',
      pk: { field: 'pk', composite: ['ownerId', 'slug'], casing: 'none' },
      sk: { field: 'sk', composite: sortKey, casing: 'none' },
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
