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
 * Creates the table when it is missing, and turns its TTL on (also on a table an older
 * version created). Local use only: deployed stages get both from CDK.
 */
export async function ensureTable(client: DynamoDBDocumentClient, tableName: string): Promise<'created' | 'exists'> {
  const outcome = await createIfMissing(client, tableName);
  await ensureTimeToLive(client, tableName);
  return outcome;
}

async function createIfMissing(client: DynamoDBDocumentClient, tableName: string): Promise<'created' | 'exists'> {
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
  const { TimeToLiveDescription } = await client.send(new DescribeTimeToLiveCommand({ TableName: tableName }));
  if (TimeToLiveDescription?.TimeToLiveStatus === 'ENABLED') return;
  try {
    await client.send(
      new UpdateTimeToLiveCommand({
        TableName: tableName,
        TimeToLiveSpecification: { AttributeName: tableDefinition.timeToLiveAttribute, Enabled: true },
      }),
    );
  } catch (error) {
    // A parallel process turned it on first.
    if (!(error instanceof Error && /already enabled/i.test(error.message))) throw error;
  }
}
