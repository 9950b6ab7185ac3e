/**
 * The warm reads' item mapper (shared/db/items.ts) against ElectroDB's own parse, and the raw
 * Queries' keys (shared/db/raw-query.ts) against ElectroDB's own params: a field the mapper
 * dropped, reordered or changed would change an answer's bytes and its ETag.
 */
import { Entity } from 'electrodb';
import { describe, expect, test } from 'vitest';
import { type AnyEntity, collectionItems, itemReader, itemsOf, type StoredItem } from '#db/items.ts';
import { queryTemplate } from '#db/raw-query.ts';
import { db, entities } from '#db/service.ts';

const table = { table: 'pricing-test' };

interface Definition {
  type: unknown;
  properties?: Record<string, Definition>;
}

/** A value for every attribute of a schema, by type, so an attribute added later is covered too. */
function sampleOf(name: string, { type, properties }: Definition, n: number): unknown {
  if (Array.isArray(type)) return type[n % type.length];
  if (type === 'number') return n + 7;
  if (type === 'boolean') return n % 2 === 0;
  if (type === 'map') {
    return Object.fromEntries(
      Object.entries(properties ?? {}).map(([key, property], i) => [key, sampleOf(key, property, n + i)]),
    );
  }
  return `${name}-${n}`;
}

const attributesOf = (entity: AnyEntity) => entity.schema.attributes as Record<string, Definition>;

/** What ElectroDB stores for an item with every attribute set: keys, markers and all. */
function storedItem(entity: AnyEntity, n = 1): StoredItem {
  const item = Object.fromEntries(
    Object.entries(attributesOf(entity)).map(([name, definition], i) => [name, sampleOf(name, definition, n + i)]),
  );
  return entity.put(item).params(table).Item as StoredItem;
}

/** The same item's attributes in another order, as DynamoDB may return them. */
const reversed = (item: StoredItem): StoredItem => Object.fromEntries(Object.entries(item).reverse());

const projectCollection = ['project', 'feature', 'featureHead', 'plan', 'planFeature'] as const;

describe('item mapper (shared/db/items.ts) against ElectroDB parse', () => {
  test.each(projectCollection)('%s: the same object as ElectroDB, every attribute, in stored order', (alias) => {
    const entity = entities[alias] as AnyEntity;
    expect(itemReader(entity).tight).toBe(true);
    const full = storedItem(entity);
    // A stored attribute no longer in the model, and an unknown property inside a map.
    const legacy: StoredItem = { ...full, retiredField: 'x' };
    for (const [name, definition] of Object.entries(attributesOf(entity))) {
      if (definition.type === 'map') legacy[name] = { extra: 1, ...legacy[name] };
    }
    const samples = [full, reversed(full), legacy, storedItem(entity, 5), full, reversed(full)];
    const ours = itemsOf(entity, samples);
    const electro = entity.parse({ Items: samples }).data;
    expect(JSON.stringify(ours)).toBe(JSON.stringify(electro));
    expect(ours).toStrictEqual(electro);
    // Every attribute of the model came through (none dropped by the mapper or the fixture).
    expect(Object.keys(ours[0] as object).sort()).toEqual(Object.keys(attributesOf(entity)).sort());
    expect(Object.keys(ours[1] as object)).toEqual(Object.keys(electro[1] as object));
  });

  test('optional attributes absent: a second layout, still what ElectroDB returns', () => {
    const { project } = entities;
    const full = storedItem(project);
    const { checkoutSuccessUrl: _a, revision: _b, paymentKeySealed: _c, ...sparse } = full;
    const samples = [full, sparse, full, sparse, reversed(sparse)];
    expect(itemsOf(project, samples)).toStrictEqual(project.parse({ Items: samples }).data);
  });

  test('many layouts of one entity: past the compiled ones, read key by key, the same', () => {
    const { feature } = entities;
    const full = storedItem(feature);
    const names = Object.keys(full);
    // Twelve orders of the same attributes: more than the compiled layouts kept.
    const samples = Array.from({ length: 12 }, (_, i) =>
      Object.fromEntries([...names.slice(i), ...names.slice(0, i)].map((name) => [name, full[name]])),
    );
    const ours = itemsOf(feature, samples);
    const electro = feature.parse({ Items: samples }).data;
    expect(ours.map((item) => Object.keys(item))).toEqual(electro.map((item) => Object.keys(item)));
    expect(ours).toStrictEqual(electro);
  });

  test('items built key by key as the DocumentClient builds them; a layout one attribute longer or shorter is another', () => {
    const { feature } = entities;
    const full = storedItem(feature);
    const names = Object.keys(full);
    // Attributes added one by one: past a dozen of them V8 keeps such an object as a dictionary.
    const keyByKey = (keys: string[], extra?: [string, unknown]) => {
      const item: StoredItem = {};
      for (const name of keys) item[name] = full[name];
      if (extra) item[extra[0]] = extra[1];
      return item;
    };
    const optional: string[] = names.filter((name) => name === 'description' || name === 'version');
    expect(optional).toHaveLength(2);
    const samples = [
      keyByKey(names),
      keyByKey(names.filter((name) => name !== optional[0])),
      keyByKey(names, ['retiredField', 'x']),
      keyByKey(names.filter((name) => !optional.includes(name))),
      keyByKey(names),
      keyByKey(names.filter((name) => name !== optional[0])),
    ];
    const ours = itemsOf(feature, samples);
    const electro = feature.parse({ Items: samples }).data;
    expect(JSON.stringify(ours)).toBe(JSON.stringify(electro));
    expect(ours.map((item) => Object.keys(item))).toEqual(electro.map((item) => Object.keys(item)));
    expect(ours).toStrictEqual(electro);
  });

  test('only the entity’s items, of its version', () => {
    const { feature, plan } = entities;
    const own = storedItem(feature);
    const items = [own, storedItem(plan), { ...own, __edb_v__: '2' }, { ...own, __edb_e__: 'Feature' }];
    expect(itemsOf(feature, items)).toStrictEqual(feature.parse({ Items: [own] }).data);
  });

  test('a collection: every member under its alias, empty lists included', () => {
    const { project, feature, plan } = entities;
    const items = [storedItem(feature, 1), storedItem(plan), storedItem(feature, 2)];
    const read = collectionItems({ project, feature, plan }, items);
    expect(read).toStrictEqual({
      project: [],
      feature: feature.parse({ Items: [items[0] as StoredItem, items[2] as StoredItem] }).data,
      plan: plan.parse({ Items: [items[1] as StoredItem] }).data,
    });
  });

  test('what it does not mirror (a getter, a renamed field, a list) is left to ElectroDB, with the same result', () => {
    const model = { entity: 'odd', version: '1', service: 'pricing' };
    const indexes = { primary: { pk: { field: 'pk', composite: ['id'] }, sk: { field: 'sk', composite: [] } } };
    const odd = [
      new Entity({
        model,
        attributes: { id: { type: 'string' }, n: { type: 'number', get: (v: number) => v * 2 } },
        indexes,
      }),
      new Entity({ model, attributes: { id: { type: 'string' }, n: { type: 'number', field: 'num' } }, indexes }),
      new Entity({
        model,
        attributes: { id: { type: 'string' }, n: { type: 'list', items: { type: 'number' } } },
        indexes,
      }),
    ];
    const values = [
      { id: 'a', n: 2 },
      { id: 'a', n: 2 },
      { id: 'a', n: [1, 2] },
    ];
    odd.forEach((defined, i) => {
      const entity = defined as AnyEntity;
      expect(itemReader(entity).tight).toBe(false);
      const item = entity.put(values[i] as never).params(table).Item as StoredItem;
      expect(itemsOf(entity, [item])).toStrictEqual(entity.parse({ Items: [item] }).data);
    });
  });

  test('an optional map: unknown properties dropped, an empty one kept, as ElectroDB has it', () => {
    const entity = new Entity({
      model: { entity: 'mapped', version: '1', service: 'pricing' },
      attributes: {
        id: { type: 'string' },
        settings: { type: 'map', properties: { a: { type: 'string' }, b: { type: 'number' } } },
      },
      indexes: { primary: { pk: { field: 'pk', composite: ['id'] }, sk: { field: 'sk', composite: [] } } },
    });
    expect(itemReader(entity as AnyEntity).tight).toBe(true);
    const base = entity.put({ id: 'x', settings: { a: 'y' } }).params(table).Item as StoredItem;
    const samples = [
      base,
      { ...base, settings: {} },
      { ...base, settings: { other: 1 } },
      { ...base, settings: { b: 3 } },
    ];
    expect(itemsOf(entity as AnyEntity, samples)).toStrictEqual(entity.parse({ Items: samples }).data);
  });
});

describe('raw Query keys (shared/db/raw-query.ts) against ElectroDB params', () => {
  const awkward = [
    { ownerId: 'bench', slug: 'acme' },
    { ownerId: 'Owner_1#x', slug: 'a-b-c' },
    { ownerId: 'ÿ$pricing#ownerId_', slug: 'slug_with_$dollar' },
    { ownerId: 'key#sk#1', slug: '0' },
  ];
  const projectData = queryTemplate(['ownerId', 'slug'], (service, key) =>
    service.collections.projectData(key).params({ consistent: true }),
  );
  const share = queryTemplate(['shareId'], (service, key) => service.collections.share(key).params());

  test.each(awkward)('projectData of %o: ElectroDB’s key condition, without its entity filter', (key) => {
    const params = db().collections.projectData(key).params({ consistent: true });
    const input = projectData(key);
    expect(input.KeyConditionExpression).toBe(params.KeyConditionExpression);
    expect(input.TableName).toBe(params.TableName);
    expect(input.ConsistentRead).toBe(true);
    expect(input.FilterExpression).toBeUndefined();
    // The whole partition: every member keys its sort key by template (a plan under its
    // assignments' prefix), so ElectroDB's collection Query names the partition key alone.
    expect(params.KeyConditionExpression).toBe('#pk = :pk');
    expect(input.ExpressionAttributeValues).toEqual({ ':pk': params.ExpressionAttributeValues[':pk'] });
    expect(input.ExpressionAttributeNames).toEqual({ '#pk': 'pk' });
  });

  test.each(['Share0000000000000000000001', 'a#b_c$d'])('share of %s: on gsi1, ElectroDB’s key', (shareId) => {
    const params = db().collections.share({ shareId }).params();
    const input = share({ shareId });
    expect(input.IndexName).toBe('gsi1');
    expect(input.ExpressionAttributeValues?.[':pk']).toBe(params.ExpressionAttributeValues[':pk']);
    expect(input.ExpressionAttributeValues?.[':sk1']).toBe(params.ExpressionAttributeValues[':sk1']);
    expect(input.ConsistentRead).toBeUndefined();
  });
});
