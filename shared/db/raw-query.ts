// Queries sent straight through the Service's low-level client, for the warm reads whose items
// shared/db/items.ts reads from DynamoDB's own AttributeValues: ElectroDB still shapes every key
// (its own params, built once with placeholders); it does not build the request and parse
// the answer on each call, and the DocumentClient does not convert every attribute.
import { type AttributeValue, QueryCommand, type QueryCommandInput } from '@aws-sdk/client-dynamodb';
import type { QueryCommandInput as NativeQueryInput } from '@aws-sdk/lib-dynamodb';
import type { StoredItem } from './items.ts';
import { db, type PricingService, rawTable } from './service.ts';

type Composites<N extends string> = Record<N, string>;

/** Every item of a Query, page by page, as one list (AttributeValues, as DynamoDB answers). */
export async function queryAll(input: QueryCommandInput): Promise<StoredItem[]> {
  const client = rawTable().lowLevel;
  const items: StoredItem[] = [];
  let ExclusiveStartKey: StoredItem | undefined;
  do {
    const page = await client.send(new QueryCommand({ ...input, ExclusiveStartKey }));
    items.push(...(page.Items ?? []));
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return items;
}

// Private-use characters: no key composite holds them, and ElectroDB copies them as they are.
const placeholder = (name: string) => `\ue000${name}\ue001`;
const PLACEHOLDER = /\ue000(\w+)\ue001/;

/** A string with placeholders as a function of the composites (split once, joined per call). */
function fillerOf<N extends string>(template: string): (composites: Composites<N>) => string {
  const parts = template.split(PLACEHOLDER);
  return (composites) => {
    let filled = parts[0] as string;
    for (let i = 1; i < parts.length; i += 2) filled += composites[parts[i] as N] + (parts[i + 1] as string);
    return filled;
  };
}

/** Only what the key condition names: the filter ElectroDB adds to a collection Query goes. */
function keyConditionOnly(params: NativeQueryInput): NativeQueryInput {
  const { TableName, IndexName, KeyConditionExpression = '', ConsistentRead } = params;
  const tokens = new Set(KeyConditionExpression.match(/[#:][A-Za-z0-9_]+/g));
  // DynamoDB refuses an empty map: a part with nothing the condition uses is left out.
  const used = <K extends 'ExpressionAttributeNames' | 'ExpressionAttributeValues'>(part: K) => {
    const entries = Object.entries(params[part] ?? {}).filter(([token]) => tokens.has(token));
    return entries.length === 0 ? {} : { [part]: Object.fromEntries(entries) };
  };
  return {
    TableName,
    ...(IndexName === undefined ? {} : { IndexName }),
    KeyConditionExpression,
    ...used('ExpressionAttributeNames'),
    ...used('ExpressionAttributeValues'),
    ...(ConsistentRead === undefined ? {} : { ConsistentRead }),
  };
}

/**
 * A Query's input as a function of its key composites: `build` asks ElectroDB for the params
 * of the Query with placeholder composites, once per Service, and each call fills the
 * placeholders in. Only the key condition is kept (the caller keeps only the items of the
 * entities it reads, as ElectroDB's filter did, with the same read cost). ElectroDB joins
 * composites into keys as they are (`casing: 'none'`), so the filled keys are exactly its own
 * (tests/unit/items.test.ts compares them for awkward values). The values come out as the
 * low-level client takes them (the DocumentClient's marshalling, done here).
 */
export function queryTemplate<N extends string>(
  names: readonly N[],
  build: (service: PricingService, composites: Composites<N>) => NativeQueryInput,
): (composites: Composites<N>) => QueryCommandInput {
  let compiled: { service: PricingService; fill: (composites: Composites<N>) => QueryCommandInput } | undefined;
  return (composites) => {
    const service = db();
    if (compiled?.service !== service) {
      const input = keyConditionOnly(
        build(service, Object.fromEntries(names.map((name) => [name, placeholder(name)])) as Composites<N>),
      );
      // A key condition compares key attributes, strings here (the DocumentClient's marshalling of one).
      const values = Object.entries(input.ExpressionAttributeValues ?? {}).map(([token, value]) => {
        if (typeof value !== 'string') throw new Error(`${token} is not a string key`);
        const filler = fillerOf<N>(value);
        return [token, (given: Composites<N>): AttributeValue => ({ S: filler(given) })] as const;
      });
      compiled = {
        service,
        fill: (given) => ({
          ...input,
          ExpressionAttributeValues: Object.fromEntries(values.map(([token, fill]) => [token, fill(given)])),
        }),
      };
    }
    return compiled.fill(composites);
  };
}
