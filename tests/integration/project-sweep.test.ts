import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, test } from 'vitest';
import { db, entityPlaces, rawTable } from '#db/service.ts';
import type { ProjectEntity } from '#db/types.ts';
import { type ApiClient, newOwner, useLocalServer } from '../fixtures/api.ts';
import {
  makeFeature,
  makePlan,
  makeProject,
  type OwnPartitionEntity,
  ownPartitionItems,
  projectEntityItems,
} from '../fixtures/factories.ts';
import { sweepsFinished } from '../fixtures/sweeps.ts';
import { entityOf, itemsOfProject } from '../fixtures/table.ts';

/**
 * A project delete sweeps the `projectData` collection, whatever entities it holds, and what
 * the project owns in partitions of its own. These tests make sure no entity can escape that:
 * each entity of the Service has its declared place (`entityPlaces`), and one item of every
 * entity placed in the collection or in a partition of the project's own is gone after a DELETE.
 */
// No webhook delivery in the background: the outbox item the test writes must wait for the sweep.
const server = useLocalServer({ webhooksOut: false });
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

const placedIn = (place: 'projectData' | 'ownPartition') =>
  Object.entries(entityPlaces)
    .filter(([, where]) => where === place)
    .map(([alias]) => alias)
    .sort();

describe('every entity of the Service has a place', () => {
  test('an entity is placed in projectData exactly when it joins the project collection', () => {
    expect(placedIn('projectData')).toEqual(projectCollectionMembers());
    expect(Object.keys(entityPlaces).sort()).toEqual(Object.keys(db().entities).sort());
  });

  test('an entity of a partition of its own is keyed by the project id', () => {
    for (const alias of placedIn('ownPartition')) {
      const entity = db().entities[alias as OwnPartitionEntity];
      const [primary] = Object.values(entity.schema.indexes as Record<string, { pk: { composite: string[] } }>);
      expect(primary?.pk.composite, alias).toContain('projectId');
    }
  });

  test('each entity of the project collection has an item factory, so the sweep test writes it', () => {
    expect(Object.keys(projectEntityItems).sort()).toEqual(projectCollectionMembers());
  });
});

describe('DELETE of a project', () => {
  test('leaves no item behind of any entity of the collection or of its own partitions', async () => {
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
    // One item of each entity the project owns in a partition of its own, by its id.
    const outside = (Object.keys(ownPartitionItems) as OwnPartitionEntity[]).map((alias) => {
      const entity = db().entities[alias] as unknown as {
        put(item: unknown): { go(): Promise<unknown>; params(): { Item: Record<string, unknown> } };
      };
      const put = entity.put(ownPartitionItems[alias](project.id));
      const { pk, sk } = put.params().Item;
      return { alias, key: { pk, sk }, put };
    });
    for (const { put } of outside) await put.go();
    const stored = async () => {
      const { client, table } = rawTable();
      const found = await Promise.all(
        outside.map(async ({ alias, key }) =>
          (await client.send(new GetCommand({ TableName: table, Key: key, ConsistentRead: true }))).Item ? alias : [],
        ),
      );
      return found.flat().sort();
    };
    const before = await itemsOfProject(ownerId, project.slug, project.shareId);
    expect([...new Set(before.map(entityOf))].sort()).toEqual(projectCollectionMembers());
    expect(await stored()).toEqual(placedIn('ownPartition'));

    const response = await api.delete(`/api/v1/projects/${project.slug}`);
    expect(response.status).toBe(200);
    await sweepsFinished(ownerId);
    expect(await itemsOfProject(ownerId, project.slug, project.shareId)).toEqual([]);
    expect(await stored()).toEqual([]);
  });
});
