import {
  CreateTableCommand,
  DescribeTableCommand,
  ResourceInUseException,
  ResourceNotFoundException,
} from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createTableInput } from './table.ts';

/** Creates the table when it is missing. Local use only: deployed stages get it from CDK. */
export async function ensureTable(client: DynamoDBDocumentClient, tableName: string): Promise<'created' | 'exists'> {
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
