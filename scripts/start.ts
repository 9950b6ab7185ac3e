import { createDocumentClient } from '#db/client.ts';
import { ensureTable } from '#db/ensure-table.ts';
import { ConfigError, localConfig } from '#shared/config.ts';
import { type DynamoLocal, DynamoLocalError, startDynamoLocal } from './dynamodb-local.ts';

/**
 * `npm start`: DynamoDB Local as a child process (unless DYNAMODB_ENDPOINT names another
 * DynamoDB), the table when missing, and every route on Node's HTTP server.
 */
async function main(): Promise<void> {
  const config = localConfig();
  let dynamo: DynamoLocal | undefined;
  let endpoint = config.DYNAMODB_ENDPOINT;
  if (!endpoint) {
    dynamo = await startDynamoLocal({ port: config.DYNAMODB_PORT, dataDir: config.DATA_DIR });
    endpoint = dynamo.endpoint;
    // The handlers read their configuration from the environment, as on Lambda.
    process.env.DYNAMODB_ENDPOINT = endpoint;
  }
  await ensureTable(createDocumentClient({ endpoint, region: config.AWS_REGION }), config.TABLE_NAME);

  // Loaded only now: the handlers read their configuration when they are created.
  const { startLocalServer } = await import('./local-server.ts');
  const server = await startLocalServer({ port: config.PORT }).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'EADDRINUSE')
      throw new ConfigError(`Port ${config.PORT} is taken: stop what uses it or set PORT.`);
    throw error;
  });
  const storage = dynamo
    ? `DynamoDB Local on ${endpoint}, data ${config.DATA_DIR === ':memory:' ? 'in memory' : `in ${config.DATA_DIR}/`}`
    : `DynamoDB at ${endpoint}`;
  console.log(`Pricing service listening on ${server.url} (table ${config.TABLE_NAME}, ${storage}). Ctrl-C stops it.`);

  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await server.close();
    await dynamo?.stop();
    process.exit(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError || error instanceof DynamoLocalError) {
    console.error(error.message);
  } else {
    console.error(error);
  }
  process.exit(1);
});
