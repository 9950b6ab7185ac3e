import { randomBytes } from 'node:crypto';
import { createDocumentClient } from '#db/client.ts';
import { ensureTable } from '#db/ensure-table.ts';
import { freePort, startDynamoLocal } from '#dev/dynamodb-local.ts';
import { localPorts, startLocalServer } from '#dev/local-server.ts';
import type { Ports } from '#domain/ports.ts';
import { compose, type PortBuilders } from '#shared/composition.ts';
import { parseRuntimeConfig } from '#shared/config.ts';
import { localKeyring } from '#shared/secrets/keyring.ts';
import { localTokenKeys } from '#shared/secrets/token-keys.ts';

/**
 * What a bench runs against: DynamoDB Local on a free port (in memory, or file-backed in
 * `dataDir` as `npm start` runs it), the service composed over it with every port (a memory
 * keyring, the local sweeper; `ports` replaces any) and the local server. `stop` ends all three.
 */
export async function startBenchStack(options: {
  table: string;
  dataDir: string;
  env?: Record<string, string>;
  ports?: Partial<PortBuilders<Ports>>;
}) {
  const dynamo = await startDynamoLocal({ port: await freePort(), dataDir: options.dataDir });
  const { region, ...credentials } = dynamo.credential;
  const client = createDocumentClient({ endpoint: dynamo.endpoint, region, credentials });
  try {
    const config = parseRuntimeConfig({
      DYNAMODB_ENDPOINT: dynamo.endpoint,
      DYNAMODB_CREDENTIAL_FILE: dynamo.credentialFile,
      TABLE_NAME: options.table,
      LOG_LEVEL: 'silent',
      AWS_REGION: region,
      ...options.env,
    });
    const app = compose(config, {
      ...localPorts,
      keyring: () => localKeyring(randomBytes(32)),
      tokenKeys: () => localTokenKeys(randomBytes(32)),
      ...options.ports,
    });
    await ensureTable(client, options.table);
    const server = await startLocalServer({ port: 0, app });
    const stop = async () => {
      client.destroy();
      await server.close();
      await dynamo.stop();
    };
    return {
      dynamo,
      client,
      config,
      app,
      server,
      stop,
      dynamoOptions: { endpoint: dynamo.endpoint, region, credentials },
    };
  } catch (error) {
    client.destroy();
    await dynamo.stop();
    throw error;
  }
}
