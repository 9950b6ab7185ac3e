import {
  CreateTableCommand,
  DescribeTableCommand,
  DescribeTimeToLiveCommand,
  ResourceInUseException,
  ResourceNotFoundException,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createTableInput, tableDefinition } from './table.ts';

/**
 * Creates the table when it is missing, and turns on its TTL attribute when it is off.
 * Local use only: deployed stages get both from CDK.
 */
export async function ensureTable(client: DynamoDBDocumentClient, tableName: string): Promise<'created' | 'exists'> {
  const outcome = await createTable(client, tableName);
  await ensureTimeToLive(client, tableName);
  return outcome;
}

async function createTable(client: DynamoDBDocumentClient, tableName: string): Promise<'created' | 'exists'> {
  try {
    await client.send(new DescribeTableCommand({ TableName: tableName }));
    return 'exists';
  } catch (error) {
    if (!(error instanceof ResourceNotFoundException)) throw error;
  }
  try {
    await client.send(new CreateTableCommand(createTableInput(tableName)));
    return 'created';
  } catch (error) {
    // Another process (a second `npm start`, a parallel test worker) created it first.
    if (error instanceof ResourceInUseException) return 'exists';
    throw error;
  }
}

async function ensureTimeToLive(client: DynamoDBDocumentClient, tableName: string): Promise<void> {
  const AttributeName = tableDefinition.timeToLiveAttribute;
  const { TimeToLiveDescription: ttl } = await client.send(new DescribeTimeToLiveCommand({ TableName: tableName }));
  if (ttl?.AttributeName === AttributeName && ttl.TimeToLiveStatus !== 'DISABLED') return;
  try {
    await client.send(
      new UpdateTimeToLiveCommand({ TableName: tableName, TimeToLiveSpecification: { Enabled: true, AttributeName } }),
    );
  } catch (error) {
    // Another process turned it on meanwhile ("TimeToLive is already enabled").
    const { TimeToLiveDescription: now } = await client.send(new DescribeTimeToLiveCommand({ TableName: tableName }));
    if (now?.AttributeName !== AttributeName) throw error;
  }
}
