import type { TestProject } from 'vitest/node';
import { createDocumentClient } from '#db/client.ts';
import { ensureTable } from '#db/ensure-table.ts';
import { freePort, startDynamoLocal } from '../scripts/dynamodb-local.ts';

export const TEST_TABLE = 'pricing-test';

/** One in-memory DynamoDB Local for the whole run, on a random port. */
export default async function setup(project: TestProject) {
  const dynamo = await startDynamoLocal({ port: await freePort(), dataDir: ':memory:' });
  const client = createDocumentClient({ endpoint: dynamo.endpoint, region: 'us-east-1' });
  await ensureTable(client, TEST_TABLE);
  client.destroy();
  project.provide('dynamoEndpoint', dynamo.endpoint);
  return async () => {
    await dynamo.stop();
  };
}

declare module 'vitest' {
  export interface ProvidedContext {
    dynamoEndpoint: string;
  }
}
