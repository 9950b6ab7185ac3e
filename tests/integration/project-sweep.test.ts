import { beforeAll, describe, expect, test } from 'vitest';
import { db, unscopedEntities } from '#db/service.ts';
import type { ProjectEntity } from '#db/types.ts';
import { type ApiClient, newOwner, useLocalServer } from '../fixtures/api.ts';
import { makeFeature, makePlan, makeProject, projectEntityItems } from '../fixtures/factories.ts';
import { sweepsFinished } from '../fixtures/sweeps.ts';
import { entityOf, itemsOfProject } from '../fixtures/table.ts';

/**
 * A project delete sweeps the `projectData` collection, whatever entities it holds. These
 * tests make sure no entity can escape that: each entity of the Service is either in the
 * collection or declared as living outside projects, and one item of every collection
 * entity is gone after a DELETE.
 */
const server = useLocalServer();
let api: ApiClient;
let ownerId: string;

beforeAll(async () => {
  const owner = await newOwner('sweep');
  ownerId = owner.ownerId;
  api = server.client(owner.writeKey);
});

const collectionsOf = (index: { collection?: string | readonly string[] }) => [index.collection ?? []].flat();

/** The Service's entities that join the project collection, read from their indexes. */
function projectCollectionMembers(): string[] {
  return Object.entries(db().entities)
    .filter(([, entity]) =>
      Object.values(entity.schema.indexes as Record<string, { collection?: string | readonly string[] }>).some(
        (index) => collectionsOf(index).includes('projectData'),
      ),
    )
    .map(([alias]) => alias)
    .sort();
}

describe('every entity of the Service has a place', () => {
  test('each one is in the project collection or on the documented unscoped list, not both', () => {
    const members = projectCollectionMembers();
    const unscoped: string[] = [...unscopedEntities];
    expect(members.filter((alias) => unscoped.includes(alias))).toEqual([]);
    expect([...members, ...unscoped].sort()).toEqual(Object.keys(db().entities).sort());
  });

  test('each entity of the project collection has an item factory, so the sweep test writes it', () => {
    expect(Object.keys(projectEntityItems).sort()).toEqual(projectCollectionMembers());
  });
});

describe('DELETE of a project', () => {
  test('leaves no item of any entity of the collection behind', async () => {
    const project = await makeProject(api);
    const scope = { ownerId, slug: project.slug, shareId: project.shareId };
    // Through the API, as a customer would: a feature, and a plan that has it.
    const feature = await makeFeature(api, project.slug);
    await makePlan(api, project.slug, { features: [{ featureId: feature.id }] });
    // And one item of every other entity the collection holds, written directly, under ids
    // far from those the API allocates (an entity ignores the ids it does not have). A put,
    // since an entity with one item per project (the feature head) has it already.
    const farIds = { featureId: 9e9, planId: 9e9 };
    const children = (Object.keys(projectEntityItems) as ProjectEntity[]).filter((alias) => alias !== 'project');
    for (const alias of children) {
      const entity = db().entities[alias] as unknown as { put(item: unknown): { go(): Promise<unknown> } };
      await entity.put({ ...projectEntityItems[alias](scope), ...farIds }).go();
    }
    const before = await itemsOfProject(ownerId, project.slug, project.shareId);
    expect([...new Set(before.map(entityOf))].sort()).toEqual(projectCollectionMembers());

    const response = await api.delete(`/api/v1/projects/${project.slug}`);
    expect(response.status).toBe(200);
    await sweepsFinished(ownerId);
    expect(await itemsOfProject(ownerId, project.slug, project.shareId)).toEqual([]);
  });
});
