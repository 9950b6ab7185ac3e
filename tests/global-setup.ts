import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { createDocumentClient } from '#db/client.ts';
import { ensureTable } from '#db/ensure-table.ts';
import { freePort, startDynamoLocal } from '#dev/dynamodb-local.ts';
import { ensureLocalKeyFile } from '#shared/secrets/keyring.ts';
import { writeWidget } from '../widget/build.ts';

export const TEST_TABLE = 'pricing-test';

/** One in-memory DynamoDB Local for the whole run, on a random port. */
export default async function setup(project: TestProject) {
  const dynamo = await startDynamoLocal({ port: await freePort(), dataDir: ':memory:' });
  const client = createDocumentClient({ endpoint: dynamo.endpoint, region: 'us-east-1' });
  await ensureTable(client, TEST_TABLE);
  client.destroy();
  project.provide('dynamoEndpoint', dynamo.endpoint);
  // Payment keys are sealed with a local key file, as under `npm start`.
  const workDir = await mkdtemp(join(tmpdir(), 'pricing-test-'));
  project.provide('paymentKeyFile', (await ensureLocalKeyFile(workDir)).path);
  // The widget is built once for the run, as `npm start` builds it.
  project.provide('widgetFile', writeWidget(join(workDir, 'widget.js')));
  return async () => {
    await dynamo.stop();
    await rm(workDir, { recursive: true, force: true });
  };
}

declare module 'vitest' {
  export interface ProvidedContext {
    dynamoEndpoint: string;
    paymentKeyFile: string;
    widgetFile: string;
  }
}
