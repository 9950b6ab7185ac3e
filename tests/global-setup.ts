import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { freePort, startDynamoLocal } from '#dev/dynamodb-local.ts';
import { ensureLocalKeyFile } from '#shared/secrets/local-key-file.ts';
import { writeWidget } from '../widget/build.ts';

/** One in-memory DynamoDB Local for the whole run, on a random port. */
export default async function setup(project: TestProject) {
  const dynamo = await startDynamoLocal({ port: await freePort(), dataDir: ':memory:' });
  // It answers only to its local credential, as under `npm start`: the workers get its file,
  // and each test file makes its table (tests/setup.ts).
  project.provide('dynamoEndpoint', dynamo.endpoint);
  project.provide('dynamoCredentialFile', dynamo.credentialFile);
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
    dynamoCredentialFile: string;
    paymentKeyFile: string;
    widgetFile: string;
  }
}
