// Stored items read straight from a Query's low-level output (DynamoDB's AttributeValues), as
// the DocumentClient and ElectroDB's own parse would give them, without either's per-item
// machinery, which dominates a warm read's CPU on large pages (the DocumentClient builds every
// item one attribute at a time, objects V8 then keeps as dictionaries). The readers follow each
// entity's own schema, so an added attribute needs no edit here; one this module does not
// mirror exactly (a getter, a renamed field, a hidden one, a list or a set) makes the entity
// fall back to ElectroDB's parse. tests/unit/items.test.ts holds them equal.
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import type { NativeAttributeValue } from '@aws-sdk/lib-dynamodb';
import { convertToNative, unmarshall } from '@aws-sdk/util-dynamodb';
import type { Entity, EntityItem } from 'electrodb';
import { unmarshallNumbers } from './numbers.ts';

/** An item as the low-level client returns it: attribute name to AttributeValue. */
export type StoredItem = Record<string, AttributeValue>;

// biome-ignore lint/suspicious/noExplicitAny: any entity of the service
export type AnyEntity = Entity<any, any, any, any>;

interface Definition {
  type?: unknown;
  properties?: Record<string, Definition>;
  [option: string]: unknown;
}

type Read = (value: AttributeValue) => NativeAttributeValue;

/**
 * One attribute's value as the DocumentClient gives it (sets as Sets, numbers past 2^53 as the
 * nearest double: shared/db/numbers.ts): lib-dynamodb converts each attribute of a Query's items
 * with this and the same options.
 */
const native: Read = (value) => convertToNative(value, unmarshallNumbers);

/** Attribute options that change nothing when ElectroDB reads an item (padding shapes keys only). */
const INERT = new Set(['type', 'required', 'readOnly', 'default', 'padding', 'validate', 'properties']);

// The usual stored form read directly, anything else (a NULL, another type, a number past 2^53)
// by the DocumentClient's own conversion: the low-level client gives one member per value.
const text: Read = (value) => value.S ?? native(value);
const flag: Read = (value) => value.BOOL ?? native(value);
const number: Read = (value) => {
  if (value.N !== undefined) {
    const n = Number(value.N);
    if (n <= Number.MAX_SAFE_INTEGER && n >= Number.MIN_SAFE_INTEGER) return n;
  }
  return native(value);
};

type Native = NativeAttributeValue;

/**
 * An attribute of any type (a plan's stored assignments: a map of maps of numbers and strings)
 * as the DocumentClient converts it: maps, strings, booleans and safe numbers read directly,
 * anything else (a list, a set, a NULL, a number past 2^53, a binary) by its own conversion,
 * which runs Object.entries and a type switch for every value.
 */
export const anything: Read = (value) => {
  if (value.N !== undefined) return number(value);
  if (value.S !== undefined) return value.S;
  const { M } = value;
  if (M !== undefined) {
    const map: Record<string, Native> = {};
    for (const key in M) map[key] = anything(M[key] as AttributeValue);
    return map;
  }
  if (value.BOOL !== undefined) return value.BOOL;
  return native(value);
};

/** Thrown by a map's reader for a value stored as anything else: the item goes to ElectroDB's parse. */
const notAMap = new Error('not a map');

/**
 * How ElectroDB reads one attribute's stored value, or undefined where this module does not
 * mirror it. Scalars and enums as stored; a map rebuilt in its schema's property order from its
 * known properties that are present (unknown ones dropped), an empty one included; a map
 * stored as anything else (a NULL...) is left to ElectroDB, whatever it makes of it.
 */
function readerOf(definition: Definition): Read | undefined {
  if (Object.keys(definition).some((option) => !INERT.has(option))) return undefined;
  const { type, properties } = definition;
  if (properties === undefined) {
    if (Array.isArray(type) || type === 'string') return text;
    if (type === 'number') return number;
    if (type === 'boolean') return flag;
    if (type === 'any') return anything;
  }
  if (type !== 'map' || properties === undefined) return undefined;
  const readers: [string, Read][] = [];
  for (const [name, property] of Object.entries(properties)) {
    const read = readerOf(property);
    if (!read) return undefined;
    readers.push([name, read]);
  }
  return ({ M }) => {
    if (M === undefined) throw notAMap;
    const map: Record<string, Native> = {};
    for (const [name, read] of readers) {
      const stored = M[name];
      if (stored !== undefined) map[name] = read(stored);
    }
    return map;
  };
}

export interface ItemReader<E extends AnyEntity> {
  /** The entity's name and key-layout version, as every item it writes carries them. */
  entity: string;
  version: string;
  /** Whether the tight reader is used (false: ElectroDB's parse). */
  tight: boolean;
  /** Items of this entity (checked by the caller), as ElectroDB's parse returns them. */
  read(items: StoredItem[]): EntityItem<E>[];
}

const readers = new WeakMap<AnyEntity, ItemReader<AnyEntity>>();

type Readers = Record<string, Read>;
type Build = (item: StoredItem, read: Readers) => Record<string, Native>;

/** One attribute layout of an entity's stored items (their keys in stored order), compiled. */
interface Shape {
  keys: string[];
  build: Build;
}

/** An entity's items come in a few layouts (optional attributes present or not); more are read key by key. */
const MAX_SHAPES = 8;

/** Whether a stored item's keys, as `Object.keys` lists them (its own order), are exactly these. */
function sameKeys(names: string[], keys: string[]): boolean {
  if (names.length !== keys.length) return false;
  for (let i = 0; i < keys.length; i++) if (names[i] !== keys[i]) return false;
  return true;
}

/**
 * The item as one object literal of the attributes it holds, in its own order (keys and markers
 * dropped): V8 builds a literal from a ready-made layout faster than it adds attributes one by
 * one, and the result is a fast-mode object the answer's views read quickly.
 * A string attribute's usual form is read inline. The generated code names only the entity's
 * own attribute names, never a value or a key from the table.
 */
function compile(keys: string[], read: Readers): Shape {
  const fields = keys
    .filter((key) => read[key] !== undefined)
    .map((name) => {
      const key = JSON.stringify(name);
      return read[name] === text
        ? `${key}: (v = item[${key}]).S ?? read[${key}](v)`
        : `${key}: read[${key}](item[${key}])`;
    });
  return { keys, build: new Function('item', 'read', `let v; return { ${fields.join(', ')} };`) as Build };
}

function buildReader<E extends AnyEntity>(entity: E): ItemReader<E> {
  const { model, attributes } = entity.schema as {
    model: { entity: string; version: string };
    attributes: Record<string, Definition>;
  };
  // The fallback for an attribute the readers below do not mirror.
  const parse = (items: StoredItem[]) =>
    entity.parse({ Items: items.map((item) => unmarshall(item, unmarshallNumbers)) }).data as Native[];
  const read: Readers = Object.create(null);
  for (const [name, definition] of Object.entries(attributes)) {
    const reader = name === '__proto__' ? undefined : readerOf(definition);
    if (!reader) return { entity: model.entity, version: model.version, tight: false, read: parse as never };
    read[name] = reader;
  }
  const shapes: Shape[] = [];
  // In the stored item's own attribute order, as ElectroDB keeps it; keys and markers dropped.
  const keyByKey = (item: StoredItem) => {
    const parsed: Record<string, Native> = {};
    for (const name in item) {
      const reader = read[name];
      if (reader) parsed[name] = reader(item[name] as AttributeValue);
    }
    return parsed;
  };
  const readOne = (item: StoredItem) => {
    const names = Object.keys(item);
    for (const shape of shapes) if (sameKeys(names, shape.keys)) return shape.build(item, read);
    if (shapes.length === MAX_SHAPES) return keyByKey(item);
    const shape = compile(names, read);
    shapes.push(shape);
    return shape.build(item, read);
  };
  return {
    entity: model.entity,
    version: model.version,
    tight: true,
    read: (items) => {
      const parsed: Native[] = [];
      for (const item of items) {
        try {
          parsed.push(readOne(item));
        } catch (error) {
          if (error !== notAMap) throw error;
          parsed.push(...parse([item]));
        }
      }
      return parsed as EntityItem<E>[];
    },
  };
}

/** The reader of an entity's items, built once per entity. */
export function itemReader<E extends AnyEntity>(entity: E): ItemReader<E> {
  if (!readers.has(entity)) readers.set(entity, buildReader(entity));
  return readers.get(entity) as ItemReader<E>;
}

/** Whether a stored item is the entity's (ElectroDB's own test: its name and version markers). */
export const isItemOf = (reader: Pick<ItemReader<AnyEntity>, 'entity' | 'version'>, item: StoredItem): boolean =>
  item.__edb_e__?.S === reader.entity && item.__edb_v__?.S === reader.version;

/** The items of one entity among those of a Query, read as ElectroDB would. */
export function itemsOf<E extends AnyEntity>(entity: E, items: StoredItem[]): EntityItem<E>[] {
  const reader = itemReader(entity);
  return reader.read(items.filter((item) => isItemOf(reader, item)));
}

/**
 * The items of a collection's Query by entity alias, as ElectroDB's collection query returns
 * them: every member entity under its alias (an empty list when it has none), items of other
 * entities left out.
 */
export function collectionItems<M extends Record<string, AnyEntity>>(
  members: M,
  items: StoredItem[],
): { [A in keyof M]: EntityItem<M[A]>[] } {
  const byEntity = new Map<string, { alias: keyof M; reader: ItemReader<AnyEntity>; items: StoredItem[] }>();
  for (const [alias, entity] of Object.entries(members)) {
    const reader = itemReader(entity);
    byEntity.set(reader.entity, { alias, reader, items: [] });
  }
  for (const item of items) {
    const bucket = byEntity.get(item.__edb_e__?.S as string);
    if (bucket && item.__edb_v__?.S === bucket.reader.version) bucket.items.push(item);
  }
  const result = {} as { [A in keyof M]: EntityItem<M[A]>[] };
  for (const { alias, reader, items: own } of byEntity.values()) result[alias] = reader.read(own) as never;
  return result;
}
