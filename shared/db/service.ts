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
};

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
] as const satisfies readonly (keyof typeof entities)[];

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
