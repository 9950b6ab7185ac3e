import { randomUUID } from 'node:crypto';
import { inject } from 'vitest';

// Before any module reads its configuration: the handlers see the test database as they
// would see their table on Lambda.
process.env.DYNAMODB_ENDPOINT = inject('dynamoEndpoint');
process.env.DYNAMODB_CREDENTIAL_FILE = inject('dynamoCredentialFile');
// A table of each file's own on the run's DynamoDB Local. The fixtures' checks that nothing
// is left anywhere, and the local server's start-up scan, read the whole table: on one table
// shared by every file, each of them would read what all the files before it wrote.
process.env.TABLE_NAME = `pricing-test-${randomUUID().slice(0, 8)}`;
process.env.LOG_LEVEL ??= 'silent';
process.env.PAYMENT_KEY_FILE ??= inject('paymentKeyFile');
process.env.WIDGET_FILE ??= inject('widgetFile');
// The tests' webhook receivers listen on 127.0.0.1 over plain http.
process.env.WEBHOOK_URLS ??= 'loopback';

// Imported once the environment above is set.
const { createDocumentClient, dynamoOptions } = await import('#db/client.ts');
const { ensureTable } = await import('#db/ensure-table.ts');
const client = createDocumentClient(
  dynamoOptions({
    DYNAMODB_ENDPOINT: process.env.DYNAMODB_ENDPOINT,
    AWS_REGION: 'us-east-1',
    DYNAMODB_CREDENTIAL_FILE: process.env.DYNAMODB_CREDENTIAL_FILE,
  }),
);
await ensureTable(client, process.env.TABLE_NAME);
client.destroy();
