/**
 * The warm reads' item mapper (shared/db/items.ts), reading DynamoDB's AttributeValues, against
 * the old path: the DocumentClient's conversion then ElectroDB's own parse; and the raw Queries'
 * keys (shared/db/raw-query.ts) against ElectroDB's own params: a field the mapper dropped,
 * reordered or changed would change an answer's bytes and its ETag.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { Entity } from 'electrodb';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { type AnyEntity, collectionItems, itemReader, itemsOf as readItems, type StoredItem } from '#db/items.ts';
import { unmarshallNumbers } from '#db/numbers.ts';
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

/** An item as the DocumentClient takes and gives it (native values). */
type NativeItem = Record<string, any>;

/** What ElectroDB stores for an item with every attribute set: keys, markers and all. */
function storedItem(entity: AnyEntity, n = 1): NativeItem {
  const item = Object.fromEntries(
    Object.entries(attributesOf(entity)).map(([name, definition], i) => [name, sampleOf(name, definition, n + i)]),
  );
  return entity.put(item).params(table).Item as NativeItem;
}

/** The same item's attributes in another order, as DynamoDB may return them. */
const reversed = (item: NativeItem): NativeItem => Object.fromEntries(Object.entries(item).reverse());

/** The item as the low-level client gives it (AttributeValues, in the same order). */
const raw = (item: NativeItem): StoredItem => marshall(item) as StoredItem;

/** The new path: AttributeValues read by shared/db/items.ts. */
const itemsOf = (entity: AnyEntity, items: NativeItem[]) => readItems(entity, items.map(raw));

/** The old path: the DocumentClient's conversion of the same AttributeValues, then ElectroDB's parse. */
const parsed = (entity: AnyEntity, items: NativeItem[]) =>
  entity.parse({ Items: items.map((item) => unmarshall(raw(item), unmarshallNumbers)) }).data as NativeItem[];

const projectCollection = ['project', 'feature', 'featureHead', 'plan'] as const;

describe('item mapper (shared/db/items.ts) against ElectroDB parse', () => {
  test.each(projectCollection)('%s: the same object as ElectroDB, every attribute, in stored order', (alias) => {
    const entity = entities[alias] as AnyEntity;
    expect(itemReader(entity).tight).toBe(true);
    const full = storedItem(entity);
    // A stored attribute no longer in the model, and an unknown property inside a map.
    const retired: NativeItem = { ...full, retiredField: 'x' };
    for (const [name, definition] of Object.entries(attributesOf(entity))) {
      if (definition.type === 'map') retired[name] = { extra: 1, ...retired[name] };
    }
    const samples = [full, reversed(full), retired, storedItem(entity, 5), full, reversed(full)];
    const ours = itemsOf(entity, samples);
    const electro = parsed(entity, samples);
    expect(JSON.stringify(ours)).toBe(JSON.stringify(electro));
    expect(ours).toStrictEqual(electro);
    // Every attribute of the model came through (none dropped by the mapper or the fixture).
    expect(Object.keys(ours[0] as object).sort()).toEqual(Object.keys(attributesOf(entity)).sort());
    expect(Object.keys(ours[1] as object)).toEqual(Object.keys(electro[1] as object));
  });

  test('optional attributes absent: a second layout, still what ElectroDB returns', () => {
    const { project } = entities;
    const full = storedItem(project);
    const { checkoutSuccessUrl: _a, signupUrl: _b, paymentKeySealed: _c, ...sparse } = full;
    const samples = [full, sparse, full, sparse, reversed(sparse)];
    expect(itemsOf(project, samples)).toStrictEqual(parsed(project, samples));
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
    const electro = parsed(feature, samples);
    expect(ours.map((item) => Object.keys(item))).toEqual(electro.map((item) => Object.keys(item)));
    expect(ours).toStrictEqual(electro);
  });

  test('items built key by key as the DocumentClient builds them; a layout one attribute longer or shorter is another', () => {
    const { feature } = entities;
    const full = storedItem(feature);
    const names = Object.keys(full);
    // Attributes added one by one: past a dozen of them V8 keeps such an object as a dictionary.
    const keyByKey = (keys: string[], extra?: [string, unknown]) => {
      const item: NativeItem = {};
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
    const electro = parsed(feature, samples);
    expect(JSON.stringify(ours)).toBe(JSON.stringify(electro));
    expect(ours.map((item) => Object.keys(item))).toEqual(electro.map((item) => Object.keys(item)));
    expect(ours).toStrictEqual(electro);
  });

  test('only the entity’s items, of its version', () => {
    const { feature, plan } = entities;
    const own = storedItem(feature);
    const items = [own, storedItem(plan), { ...own, __edb_v__: '2' }, { ...own, __edb_e__: 'Feature' }];
    expect(itemsOf(feature, items)).toStrictEqual(parsed(feature, [own]));
  });

  test('a collection: every member under its alias, empty lists included', () => {
    const { project, feature, plan } = entities;
    const items = [storedItem(feature, 1), storedItem(plan), storedItem(feature, 2)];
    const read = collectionItems({ project, feature, plan }, items.map(raw));
    expect(read).toStrictEqual({
      project: [],
      feature: parsed(feature, [items[0] as NativeItem, items[2] as NativeItem]),
      plan: parsed(plan, [items[1] as NativeItem]),
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
      const item = entity.put(values[i] as never).params(table).Item as NativeItem;
      expect(itemsOf(entity, [item])).toStrictEqual(parsed(entity, [item]));
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
    const base = entity.put({ id: 'x', settings: { a: 'y' } }).params(table).Item as NativeItem;
    const samples = [
      base,
      { ...base, settings: {} },
      { ...base, settings: { other: 1 } },
      { ...base, settings: { b: 3 } },
    ];
    expect(itemsOf(entity as AnyEntity, samples)).toStrictEqual(parsed(entity as AnyEntity, samples));
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
    // The partition's collection prefix, every member's; the values as the low-level client takes them.
    expect(params.KeyConditionExpression).toBe('#pk = :pk and begins_with(#sk1, :sk1)');
    expect(params.ExpressionAttributeValues[':sk1']).toBe('$projectData');
    expect(input.ExpressionAttributeValues).toStrictEqual({
      ':pk': { S: params.ExpressionAttributeValues[':pk'] },
      ':sk1': { S: '$projectData' },
    });
    expect(input.ExpressionAttributeNames).toEqual({ '#pk': 'pk', '#sk1': 'sk' });
  });

  test.each(['Share0000000000000000000001', 'a#b_c$d'])('share of %s: on gsi1, ElectroDB’s key', (shareId) => {
    const params = db().collections.share({ shareId }).params();
    const input = share({ shareId });
    expect(input.IndexName).toBe('gsi1');
    expect(input.ExpressionAttributeValues?.[':pk']).toStrictEqual({ S: params.ExpressionAttributeValues[':pk'] });
    expect(input.ExpressionAttributeValues?.[':sk1']).toStrictEqual({ S: params.ExpressionAttributeValues[':sk1'] });
    expect(input.ConsistentRead).toBeUndefined();
  });
});

describe('any stored value: the DocumentClient’s conversion then ElectroDB’s parse, or the same error', () => {
  const numberText = fc.oneof(
    fc.integer().map(String),
    fc.double({ noNaN: true, noDefaultInfinity: true }).map(String),
    fc.bigInt({ min: -(10n ** 38n), max: 10n ** 38n }).map(String),
    fc.constantFrom('9007199254740991', '9007199254740992', '-9007199254740993', '1e300', '-0', '0.1', '1E-130'),
  );
  const scalar: fc.Arbitrary<AttributeValue> = fc.oneof(
    fc.string().map((S) => ({ S })),
    numberText.map((N) => ({ N })),
    fc.boolean().map((BOOL) => ({ BOOL })),
    fc.constant({ NULL: true as const }),
    fc.uint8Array({ maxLength: 4 }).map((B) => ({ B })),
    fc.uniqueArray(fc.string(), { minLength: 1, maxLength: 3 }).map((SS) => ({ SS })),
    fc.uniqueArray(numberText, { minLength: 1, maxLength: 3 }).map((NS) => ({ NS })),
  );
  const value = (names: string[]): fc.Arbitrary<AttributeValue> =>
    fc.letrec<{ value: AttributeValue }>((tie) => ({
      value: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        scalar,
        fc.array(tie('value'), { maxLength: 3 }).map((L) => ({ L })),
        fc
          .dictionary(fc.constantFrom(...names, 'extra'), tie('value'), { maxKeys: 4 })
          .map((M) => ({ M: M as Record<string, AttributeValue> })),
      ),
    })).value;
  /** The usual stored form of an attribute (most of the time), or anything else. */
  function attributeValue(definition: Definition): fc.Arbitrary<AttributeValue> {
    const names = Object.keys(definition.properties ?? {});
    const usual: fc.Arbitrary<AttributeValue> =
      definition.type === 'number'
        ? numberText.map((N) => ({ N }))
        : definition.type === 'boolean'
          ? fc.boolean().map((BOOL) => ({ BOOL }))
          : definition.type === 'map'
            ? fc
                .tuple(
                  ...Object.entries(definition.properties ?? {}).map(([name, property]) =>
                    fc.option(attributeValue(property), { nil: undefined }).map((v) => [name, v] as const),
                  ),
                  fc.option(value(names), { nil: undefined }),
                )
                .map((entries) => {
                  const extra = entries.pop() as AttributeValue | undefined;
                  const known = entries as unknown as [string, AttributeValue | undefined][];
                  const M = Object.fromEntries(known.filter(([, v]) => v !== undefined));
                  return { M: extra ? { ...M, extra } : M } as AttributeValue;
                })
            : definition.type === 'any'
              ? // A plan's stored assignments: feature id → { i, m, c } (shared/db/plan-assignments.ts).
                fc
                  .dictionary(
                    fc.integer({ min: 1, max: 1e12 }).map(String),
                    fc
                      .record({ i: numberText, m: numberText, c: fc.string() })
                      .map(({ i, m, c }) => ({ M: { i: { N: i }, m: { N: m }, c: { S: c } } }) as AttributeValue),
                    { maxKeys: 6 },
                  )
                  .map((M) => ({ M }) as AttributeValue)
              : fc.string().map((S) => ({ S }));
    return fc.oneof({ weight: 4, arbitrary: usual }, { weight: 1, arbitrary: value(names) });
  }
  /**
   * The item without what no answer uses: attributes the model does not name (keys and markers
   * aside) and map properties it does not name. The DocumentClient converts those too, and fails
   * a whole read on a value it cannot convert there (a NUMBER past 2^53 with decimals); the new
   * path never reads them. Everything the model names is converted as before, errors included.
   */
  function modelOnly(entity: AnyEntity, item: StoredItem): StoredItem {
    const trim = (definition: Definition, stored: AttributeValue): AttributeValue => {
      if (definition.type !== 'map' || stored.M === undefined) return stored;
      const properties = definition.properties ?? {};
      const M = Object.entries(stored.M).filter(([name]) => Object.hasOwn(properties, name));
      return { M: Object.fromEntries(M.map(([name, v]) => [name, trim(properties[name] as Definition, v)])) };
    };
    const attributes = attributesOf(entity);
    return Object.fromEntries(
      Object.entries(item)
        .filter(([name]) => name !== 'retiredField')
        .map(([name, stored]) => [
          name,
          Object.hasOwn(attributes, name) ? trim(attributes[name] as Definition, stored) : stored,
        ]),
    );
  }
  const outcome = (read: () => unknown) => {
    try {
      return { value: read() };
    } catch (error) {
      return { error: (error as Error).message };
    }
  };

  test.each(projectCollection)('%s: items of any attribute values, in any order', (alias) => {
    const entity = entities[alias] as AnyEntity;
    const stored = raw(storedItem(entity));
    const attributes = Object.entries(attributesOf(entity));
    const item = fc
      .tuple(
        ...attributes.map(([name, definition]) =>
          fc.option(attributeValue(definition), { nil: undefined, freq: 5 }).map((v) => [name, v] as const),
        ),
        fc.option(value([]), { nil: undefined }),
      )
      .chain((entries) => {
        const retired = entries.pop() as AttributeValue | undefined;
        const present = [
          ...(entries as unknown as [string, AttributeValue | undefined][]).filter(([, v]) => v !== undefined),
          ...Object.entries(stored).filter(([name]) => !attributesOf(entity)[name]),
          ...(retired ? [['retiredField', retired] as const] : []),
        ];
        return fc.shuffledSubarray(present, { minLength: present.length }).map(Object.fromEntries);
      });
    fc.assert(
      fc.property(fc.array(item, { minLength: 1, maxLength: 4 }), (items: StoredItem[]) => {
        const old = (list: StoredItem[]) =>
          outcome(() => entity.parse({ Items: list.map((one) => unmarshall(one, unmarshallNumbers)) }).data);
        const ours = outcome(() => readItems(entity, items));
        const keys = (list: unknown) => (list as object[]).map((one) => Object.keys(one));
        const whole = old(items);
        if ('value' in whole) {
          // Where the old path answered, the same answer, attribute order included.
          expect(ours).toStrictEqual(whole);
          expect(keys((ours as { value: unknown }).value)).toEqual(keys(whole.value));
        } else if ('value' in ours) {
          // Where it failed on a value no answer uses, the answer it gives without that value.
          const trimmed = old(items.map((one) => modelOnly(entity, one)));
          expect(ours).toStrictEqual(trimmed);
          expect(keys(ours.value)).toEqual(keys((trimmed as { value: unknown }).value));
        }
        // Otherwise it fails too (on the first value it cannot convert, which may be another one).
      }),
      { numRuns: 500 },
    );
  });
});
