import type { CreateTableCommandInput } from '@aws-sdk/client-dynamodb';

/**
 * The one table. Its physical key names are generic (`pk`, `sk`, `gsiNpk`...); what each
 * index means lives in the entities, whose ElectroDB access patterns are named after it.
 * The local table creation and the CDK data stack both read this definition.
 */
export const tableDefinition = {
  partitionKey: 'pk',
  sortKey: 'sk',
  globalSecondaryIndexes: [
    // byShareId: every item of a project, reachable from the public share id (one Query).
    { indexName: 'gsi1', partitionKey: 'gsi1pk', sortKey: 'gsi1sk' },
    // byOwner: an owner's projects and API keys.
    { indexName: 'gsi2', partitionKey: 'gsi2pk', sortKey: 'gsi2sk' },
  ],
  // Items with a number here (epoch seconds) expire: each entity says which of its items do and
  // when. DynamoDB deletes them some time after that moment, so readers also treat a past
  // `expiresAt` as gone.
  timeToLiveAttribute: 'expiresAt',
} as const;

/**
 * The partition-key prefix of the payment records (the rate limit and checkout-session items
 * of shared/db/entities/payment-records.ts), which no other entity's keys start with: the
 * payments function may touch these items and no other item of the table (IAM
 * `dynamodb:LeadingKeys`). tests/unit/entity-keys.test.ts pins the entities to it.
 */
export const paymentRecordsKeyPrefix = '$pricing#projectId_';

export type IndexName = (typeof tableDefinition.globalSecondaryIndexes)[number]['indexName'];

export function createTableInput(tableName: string): CreateTableCommandInput {
  const { partitionKey, sortKey, globalSecondaryIndexes } = tableDefinition;
  const keyNames = [partitionKey, sortKey, ...globalSecondaryIndexes.flatMap((i) => [i.partitionKey, i.sortKey])];
  return {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: keyNames.map((name) => ({ AttributeName: name, AttributeType: 'S' })),
    KeySchema: [
      { AttributeName: partitionKey, KeyType: 'HASH' },
      { AttributeName: sortKey, KeyType: 'RANGE' },
    ],
    GlobalSecondaryIndexes: globalSecondaryIndexes.map((index) => ({
      IndexName: index.indexName,
      KeySchema: [
        { AttributeName: index.partitionKey, KeyType: 'HASH' },
        { AttributeName: index.sortKey, KeyType: 'RANGE' },
      ],
      Projection: { ProjectionType: 'ALL' },
    })),
  };
}
