import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { Service } from 'electrodb';
import { type RuntimeConfig, runtimeConfig } from '#shared/config.ts';
import { createDynamoClient, documentClientOn, dynamoOptions } from './client.ts';
import { ApiKey } from './entities/api-key.ts';
import { ChangeEntry } from './entities/change-entry.ts';
import { Counter } from './entities/counter.ts';
import { Customer } from './entities/customer.ts';
import { Feature } from './entities/feature.ts';
import { FeatureHead } from './entities/feature-head.ts';
import { IdempotencyRecord } from './entities/idempotency.ts';
import { CheckoutSession, RateLimit } from './entities/payment-records.ts';
import { Plan } from './entities/plan.ts';
import { PlanVersion } from './entities/plan-version.ts';
import { Project } from './entities/project.ts';
import { ProjectSweep } from './entities/project-sweep.ts';
import { UsageAggregate, UsageEvent, UsageUnique } from './entities/usage.ts';

export const entities = {
  project: Project,
  feature: Feature,
  featureHead: FeatureHead,
  plan: Plan,
  apiKey: ApiKey,
  counter: Counter,
  idempotencyRecord: IdempotencyRecord,
  rateLimit: RateLimit,
  checkoutSession: CheckoutSession,
  projectSweep: ProjectSweep,
  customer: Customer,
  changeEntry: ChangeEntry,
  usage: UsageAggregate,
  usageUnique: UsageUnique,
  usageEvent: UsageEvent,
  planVersion: PlanVersion,
};

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
  customer: 'ownPartition',
  changeEntry: 'ownPartition',
  usage: 'ownPartition',
  usageUnique: 'ownPartition',
  usageEvent: 'ownPartition',
  planVersion: 'ownPartition',
  apiKey: { kept: "an owner's, not a project's" },
  counter: { kept: 'one id counter per kind of resource, for every project' },
  idempotencyRecord: { kept: "an owner's request; the table's TTL removes it" },
  rateLimit: { kept: "project ids are never reused, and the table's TTL removes it" },
  checkoutSession: { kept: "project ids are never reused, and the table's TTL removes it" },
  projectSweep: { kept: "the sweep's own record, which the sweep deletes last" },
} as const satisfies { [E in keyof typeof entities]: EntityPlace };

function createService(client: DynamoDBDocumentClient, table: string) {
  return new Service(entities, { client, table });
}

export type PricingService = ReturnType<typeof createService>;

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
