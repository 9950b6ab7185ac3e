import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createWriteTransaction, type EntityConfiguration, Service } from 'electrodb';
import { type RuntimeConfig, runtimeConfig } from '#shared/config.ts';
import { createDynamoClient, documentClientOn, dynamoOptions } from './client.ts';
import { apiKeyEntity } from './entities/api-key.ts';
import { changeEntryEntity } from './entities/change-entry.ts';
import { counterEntity } from './entities/counter.ts';
import { customerEntity } from './entities/customer.ts';
import { featureEntity } from './entities/feature.ts';
import { featureHeadEntity } from './entities/feature-head.ts';
import { idempotencyRecordEntity } from './entities/idempotency.ts';
import { checkoutSessionEntity, rateLimitEntity } from './entities/payment-records.ts';
import { planEntity } from './entities/plan.ts';
import { projectEntity } from './entities/project.ts';
import { projectSweepEntity } from './entities/project-sweep.ts';
import { usageAggregateEntity, usageEventEntity, usageUniqueEntity } from './entities/usage.ts';

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
  usageEvent: usageEventEntity,
};

type Definitions = typeof entityDefinitions;
export type Entities = { [N in keyof Definitions]: ReturnType<Definitions[N]> };

/**
 * The entities that live outside any project, so a project delete leaves them alone (a
 * project's sweep record is deleted by its own sweep, last). Every
 * other entity joins the `projectData` collection (tests/integration/project-sweep.test.ts
 * fails otherwise): that is what reads it with its project and sweeps it on delete.
 * `customer` belongs to a project but lives in a partition of its own (keyed by project id),
 * which the project sweep deletes with a Query of its own (shared/db/customers.ts); so do
 * `changeEntry`, the project's change log (shared/db/changes.ts), and the usage entities
 * (shared/db/entities/usage.ts, swept by shared/db/usage.ts).
 */
export const unscopedEntities = [
  'apiKey',
  'counter',
  'idempotencyRecord',
  'rateLimit',
  'checkoutSession',
  'projectSweep',
  'customer',
  'changeEntry',
  'usage',
  'usageUnique',
  'usageEvent',
] as const satisfies readonly (keyof Definitions)[];

/** The entities of the project collections (`projectData`, `share`): every one not unscoped. */
type CollectionMember = Exclude<keyof Entities, (typeof unscopedEntities)[number]>;
type CollectionEntities = Pick<Entities, CollectionMember>;
const collectionMembers = (Object.keys(entityDefinitions) as (keyof Entities)[]).filter(
  (alias): alias is CollectionMember => !(unscopedEntities as readonly string[]).includes(alias),
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

function createService(client: DynamoDBDocumentClient, table: string): PricingService {
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

let service: PricingService | undefined;
let client: DynamoDBDocumentClient | undefined;
let lowLevelClient: DynamoDBClient | undefined;
let tableName: string | undefined;

type DatabaseConfig = Pick<
  RuntimeConfig,
  'DYNAMODB_ENDPOINT' | 'DYNAMODB_CREDENTIAL_FILE' | 'AWS_REGION' | 'TABLE_NAME'
>;

/** Called by the composition root: from then on db() is the Service on this configuration. */
export function connectDatabase(config: DatabaseConfig): void {
  lowLevelClient = createDynamoClient(dynamoOptions(config));
  client = documentClientOn(lowLevelClient);
  tableName = config.TABLE_NAME;
  service = createService(client, tableName);
}

/** The one Service, reused while warm; without a composition root, on the environment's configuration. */
export function db(): PricingService {
  if (!service) connectDatabase(runtimeConfig());
  return service as PricingService;
}

/**
 * The Service's own client and table, for the few writes whose expressions ElectroDB cannot
 * build (the rate limit's per-second counters, shared/db/rate-limits.ts); and the low-level
 * client under it (same configuration and middleware), for the warm reads that convert
 * DynamoDB's AttributeValues themselves (shared/db/raw-query.ts, shared/db/items.ts).
 */
export function rawTable(): { client: DynamoDBDocumentClient; lowLevel: DynamoDBClient; table: string } {
  db();
  return {
    client: client as DynamoDBDocumentClient,
    lowLevel: lowLevelClient as DynamoDBClient,
    table: tableName as string,
  };
}
