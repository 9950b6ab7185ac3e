import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  BatchWriteCommand,
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  ScanCommand,
  TransactGetCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { createWriteTransaction, type EntityConfiguration, Service } from 'electrodb';
import { DocumentClientV3Wrapper } from 'electrodb/src/client.js';
import { type RuntimeConfig, runtimeConfig } from '#shared/config.ts';
import { createDynamoClient, documentClientOn, dynamoOptions } from './client.ts';
import { apiKeyEntity } from './entities/api-key.ts';
import { changeEntryEntity } from './entities/change-entry.ts';
import { counterEntity } from './entities/counter.ts';
import { customerEntity } from './entities/customer.ts';
import {
  experimentEntity,
  experimentMarkEntity,
  experimentSlotEntity,
  experimentTallyEntity,
} from './entities/experiment.ts';
import { featureEntity } from './entities/feature.ts';
import { featureHeadEntity } from './entities/feature-head.ts';
import { idempotencyRecordEntity } from './entities/idempotency.ts';
import { checkoutSessionEntity, rateLimitEntity } from './entities/payment-records.ts';
import { planEntity } from './entities/plan.ts';
import { planVersionEntity } from './entities/plan-version.ts';
import { projectEntity } from './entities/project.ts';
import { projectSweepEntity } from './entities/project-sweep.ts';
import { usageAggregateEntity, usageAlertEntity, usageEventEntity, usageUniqueEntity } from './entities/usage.ts';
import {
  webhookDeliveryEntity,
  webhookEndpointEntity,
  webhookEventEntity,
  webhookLeaseEntity,
} from './entities/webhooks-out.ts';

/** Every entity of the table by alias, as the definition its Entity is built from. */
export const entityDefinitions = {
  project: projectEntity,
  feature: featureEntity,
  featureHead: featureHeadEntity,
  plan: planEntity,
  apiKey: apiKeyEntity,
  counter: counterEntity,
  idempotencyRecord: idempotencyRecordEntity,
  rateLimit: rateLimitEntity,
  checkoutSession: checkoutSessionEntity,
  projectSweep: projectSweepEntity,
  customer: customerEntity,
  changeEntry: changeEntryEntity,
  usage: usageAggregateEntity,
  usageUnique: usageUniqueEntity,
  usageAlert: usageAlertEntity,
  usageEvent: usageEventEntity,
  planVersion: planVersionEntity,
  webhookEndpoint: webhookEndpointEntity,
  webhookEvent: webhookEventEntity,
  webhookDelivery: webhookDeliveryEntity,
  webhookLease: webhookLeaseEntity,
  experiment: experimentEntity,
  experimentSlot: experimentSlotEntity,
  experimentMark: experimentMarkEntity,
  experimentTally: experimentTallyEntity,
};

type Definitions = typeof entityDefinitions;
export type Entities = { [N in keyof Definitions]: ReturnType<Definitions[N]> };

/**
 * Where each entity's items live, which decides what deletes them when their project goes
 * (tests/integration/project-sweep.test.ts writes one item of each swept entity, deletes the
 * project and fails on any item left):
 * - `projectData`: in the project's partition and its `projectData` collection, so read with
 *   the project in one Query and deleted by the sweep's passes over the partition.
 * - `ownPartition`: a project's, in a partition of its own keyed by the project id (so the
 *   project's reads never page through it); an entry of `outsidePartitionSweeps`
 *   (shared/db/project-sweep.ts) deletes it.
 * - `{ kept }`: outlives a project delete, for the reason given.
 * A new entity does not compile until it has its place here.
 */
export type EntityPlace = 'projectData' | 'ownPartition' | { kept: string };

export const entityPlaces = {
  project: 'projectData',
  feature: 'projectData',
  featureHead: 'projectData',
  plan: 'projectData',
  experiment: 'projectData',
  experimentSlot: 'projectData',
  customer: 'ownPartition',
  changeEntry: 'ownPartition',
  usage: 'ownPartition',
  usageUnique: 'ownPartition',
  usageAlert: 'ownPartition',
  usageEvent: 'ownPartition',
  planVersion: 'ownPartition',
  webhookEndpoint: 'ownPartition',
  webhookEvent: 'ownPartition',
  webhookDelivery: 'ownPartition',
  webhookLease: 'ownPartition',
  experimentMark: 'ownPartition',
  experimentTally: 'ownPartition',
  apiKey: { kept: "an owner's, not a project's" },
  counter: { kept: 'one id counter per kind of resource, for every project' },
  idempotencyRecord: { kept: "an owner's request; the table's TTL removes it" },
  rateLimit: { kept: "project ids are never reused, and the table's TTL removes it" },
  checkoutSession: { kept: "project ids are never reused, and the table's TTL removes it" },
  projectSweep: { kept: "the sweep's own record, which the sweep deletes last" },
} as const satisfies { [E in keyof Definitions]: EntityPlace };

/** The entities of the project collections (`projectData`, `share`). */
type CollectionMember = {
  [E in keyof typeof entityPlaces]: (typeof entityPlaces)[E] extends 'projectData' ? E : never;
}[keyof typeof entityPlaces];
type CollectionEntities = Pick<Entities, CollectionMember>;
const collectionMembers = (Object.keys(entityPlaces) as (keyof Entities)[]).filter(
  (alias): alias is CollectionMember => entityPlaces[alias] === 'projectData',
);

/**
 * The table, as the storage functions use it: ElectroDB's Service, built piece by piece. An
 * entity's model is checked and compiled when the process first uses that entity, and the
 * collections' Service (over their members only) at the first collection read, so a cold
 * start pays for neither, and a function pays only for the entities its requests use: the
 * share function never builds the customer, usage or idempotency entities.
 */
export interface PricingService {
  /** Each entity built at first use; enumerating them builds them all. */
  readonly entities: Entities;
  readonly collections: Service<CollectionEntities>['collections'];
  /** The collections' member entities, by alias. */
  readonly collectionEntities: CollectionEntities;
  readonly transaction: { write: Service<Entities>['transaction']['write'] };
}

/** `entities` whose properties build their Entity on first access, then hold it. */
function lazyEntities(config: EntityConfiguration): Entities {
  const entities = {} as Entities;
  for (const [alias, define] of Object.entries(entityDefinitions)) {
    Object.defineProperty(entities, alias, {
      enumerable: true,
      configurable: true,
      get() {
        const entity = define(config);
        Object.defineProperty(entities, alias, { value: entity, enumerable: true });
        return entity;
      },
    });
  }
  return entities;
}

/** Every entity without a client: its keys, requests and model, built at first use (tests, tools). */
export const entities: Entities = lazyEntities({});

/**
 * `client` as ElectroDB sends through it, with the commands it sends named here: given a bare
 * DocumentClient, ElectroDB requires all of `@aws-sdk/lib-dynamodb` for them, which keeps every
 * DynamoDB command in a function's bundle and evaluates them at its cold start
 * (infra/bundling.ts, `electrodbWithoutLib`).
 */
const electrodbClientOn = (client: DynamoDBDocumentClient) =>
  new DocumentClientV3Wrapper(client, {
    BatchGetCommand,
    BatchWriteCommand,
    DeleteCommand,
    GetCommand,
    PutCommand,
    QueryCommand,
    ScanCommand,
    TransactGetCommand,
    TransactWriteCommand,
    UpdateCommand,
  }) as unknown as EntityConfiguration['client'];

function createService(documentClient: DynamoDBDocumentClient, table: string): PricingService {
  const client = electrodbClientOn(documentClient);
  const entities = lazyEntities({ client, table });
  let collectionService: Service<CollectionEntities> | undefined;
  const collectionServiceOf = () => {
    collectionService ??= new Service(
      Object.fromEntries(collectionMembers.map((alias) => [alias, entities[alias]])) as CollectionEntities,
      { client, table },
    );
    return collectionService;
  };
  // ElectroDB's transaction is handed only the entities its builder used (it sends through the
  // first of them and reads cancelled items with them), so a write builds no other entity.
  const write = (build: (entities: Entities) => unknown) => {
    const used: Record<string, unknown> = {};
    const view = new Proxy(entities, {
      get: (target, alias: string) => {
        const entity = target[alias as keyof Entities];
        used[alias] = entity;
        return entity;
      },
    });
    const actions = build(view);
    if (Object.keys(used).length === 0) used.changeEntry = entities.changeEntry;
    return createWriteTransaction(used as Partial<Entities> as Entities, () => actions as never);
  };
  return {
    entities,
    get collections() {
      return collectionServiceOf().collections;
    },
    get collectionEntities() {
      return collectionServiceOf().entities;
    },
    transaction: { write: write as unknown as PricingService['transaction']['write'] },
  };
}

interface Connection {
  service: PricingService;
  client: DynamoDBDocumentClient;
  lowLevel: DynamoDBClient;
  table: string;
}
let connection: Connection | undefined;

type DatabaseConfig = Pick<
  RuntimeConfig,
  'DYNAMODB_ENDPOINT' | 'DYNAMODB_CREDENTIAL_FILE' | 'AWS_REGION' | 'TABLE_NAME'
>;

/** Called by the composition root: from then on db() is the Service on this configuration. */
export function connectDatabase(config: DatabaseConfig): void {
  const lowLevel = createDynamoClient(dynamoOptions(config));
  const client = documentClientOn(lowLevel);
  connection = { service: createService(client, config.TABLE_NAME), client, lowLevel, table: config.TABLE_NAME };
}

/** The one Service, reused while warm; without a composition root, on the environment's configuration. */
export const db = (): PricingService => rawTable().service;

/**
 * The Service's own client and table, for the few writes whose expressions ElectroDB cannot
 * build (the rate limit's per-second counters, shared/db/rate-limits.ts); and the low-level
 * client under it (same configuration and middleware), for the warm reads that convert
 * DynamoDB's AttributeValues themselves (shared/db/raw-query.ts, shared/db/items.ts).
 */
export function rawTable(): Connection {
  if (!connection) connectDatabase(runtimeConfig());
  return connection as Connection;
}
