import { randomBytes } from 'node:crypto';
import { join, resolve } from 'node:path';
import { createDocumentClient, dynamoOptions } from '#db/client.ts';
import { ensureTable } from '#db/ensure-table.ts';
import { type DynamoLocal, DynamoLocalError, startDynamoLocal } from '#dev/dynamodb-local.ts';
import { type FakeStripe, startFakeStripe } from '#dev/fake-stripe/index.ts';
import { type LocalConfig, localConfig } from '#dev/local-config.ts';
import { CLOSE_GRACE_MS, localPorts, startLocalServer } from '#dev/local-server.ts';
import { connectLocalWebhooks } from '#dev/local-webhooks.ts';
import type { Keyring } from '#domain/ports.ts';
import { compose } from '#shared/composition.ts';
import { ConfigError } from '#shared/config.ts';
import { keyringFor, localKeyring } from '#shared/secrets/keyring.ts';
import { ensureLocalKeyFile } from '#shared/secrets/local-key-file.ts';
import { localTokenKeys, tokenKeysFor } from '#shared/secrets/token-keys.ts';
import { writeWidget } from '../widget/build.ts';

/**
 * `npm start`: DynamoDB Local as a child process (unless DYNAMODB_ENDPOINT names another
 * DynamoDB), the table when missing, the widget built, the fake Stripe (unless
 * STRIPE_API_BASE names a Stripe), and every route on Node's HTTP server.
 */
async function main(): Promise<void> {
  const config = localConfig();
  let dynamo: DynamoLocal | undefined;
  let endpoint = config.DYNAMODB_ENDPOINT;
  let credentialFile = config.DYNAMODB_CREDENTIAL_FILE;
  if (!endpoint) {
    dynamo = await startDynamoLocal({ port: config.DYNAMODB_PORT, dataDir: config.DATA_DIR });
    if (dynamo.notice) console.log(dynamo.notice);
    endpoint = dynamo.endpoint;
    // Its data answers only to the local credential.
    credentialFile = dynamo.credentialFile;
  }
  const database = { ...config, DYNAMODB_ENDPOINT: endpoint, DYNAMODB_CREDENTIAL_FILE: credentialFile };
  await ensureTable(createDocumentClient(dynamoOptions(database)), config.TABLE_NAME);
  const keys = await setUpPaymentKeys(config);
  const fakeStripe = config.STRIPE_API_BASE ? undefined : await startLocalStripe(config);
  // One composition for every group, from this configuration and what was started for it.
  const runtime = {
    ...database,
    WIDGET_FILE: config.WIDGET_FILE ?? writeWidget(),
    STRIPE_API_BASE: fakeStripe?.url ?? config.STRIPE_API_BASE,
  };
  const app = compose(runtime, { ...localPorts, keyring: () => keys.keyring, tokenKeys: () => keys.tokenKeys });

  const server = await startLocalServer({ port: config.PORT, app }).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'EADDRINUSE')
      throw new ConfigError(`Port ${config.PORT} is taken: stop what uses it or set PORT.`);
    throw error;
  });
  const storage = dynamo
    ? `DynamoDB Local on ${endpoint}, data ${config.DATA_DIR === ':memory:' ? 'in memory' : `in ${config.DATA_DIR}/`} (open only to the credential in ${dynamo.credentialFile})`
    : `DynamoDB at ${endpoint}`;
  const stripe = fakeStripe
    ? `the fake Stripe at ${fakeStripe.url} (STRIPE_API_BASE=https://api.stripe.com for Stripe itself)`
    : `Stripe API at ${config.STRIPE_API_BASE}`;
  // Stops taking requests, lets those in flight finish (up to CLOSE_GRACE_MS), and only then
  // stops what they may still need: the fake Stripe and DynamoDB Local. A repeated signal
  // changes nothing. Installed before the start-up line: whoever reads that line may signal
  // at once.
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    const closed = server.close();
    if (server.inFlight > 0) {
      console.log(`Stopping: finishing ${server.inFlight} request(s) in flight, up to ${CLOSE_GRACE_MS / 1000} s.`);
    }
    await closed;
    await fakeStripe?.close();
    await dynamo?.stop();
    process.exit(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);

  const webhooks = fakeStripe
    ? await connectWebhooks(fakeStripe, keys.keyring, config.PUBLIC_BASE_URL ?? server.url)
    : '';
  console.log(
    `Pricing service listening on ${server.url} (table ${config.TABLE_NAME}, ${storage}; payment keys sealed ${keys.description}; ${stripe}${webhooks}). Ctrl-C stops it.`,
  );
}

/**
 * A local run takes payments offline by default: the project's fake Stripe, whose hosted
 * page completes a checkout and redirects like Stripe's. Test keys only; nothing is charged.
 * Its purchases are kept beside the table's data, so their receipts outlive a restart.
 */
async function startLocalStripe(config: LocalConfig): Promise<FakeStripe> {
  const stateFile = config.DATA_DIR === ':memory:' ? undefined : join(resolve(config.DATA_DIR), 'fake-stripe.json');
  try {
    return await startFakeStripe({ port: config.FAKE_STRIPE_PORT, ...(stateFile ? { stateFile } : {}) });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      throw new ConfigError(
        `Port ${config.FAKE_STRIPE_PORT} (the fake Stripe) is taken: set FAKE_STRIPE_PORT, or STRIPE_API_BASE to use the Stripe that runs there.`,
      );
    }
    throw error;
  }
}

/**
 * Registers every project that has a payment key with the fake Stripe, which forgets its
 * webhook endpoints when it stops; returns the words for the start-up line. A project the
 * fake refuses is reported and the server still starts.
 */
async function connectWebhooks(fake: FakeStripe, keyring: Keyring, publicBaseUrl: string): Promise<string> {
  const { connected, failed } = await connectLocalWebhooks({ keyring, stripeApiBase: fake.url, publicBaseUrl });
  for (const { ownerId, slug, reason } of failed) {
    console.warn(`Project ${slug} (owner ${ownerId}) has no webhook endpoint on the fake Stripe: ${reason}`);
  }
  return connected > 0 ? `; webhooks of ${connected} project(s) registered with it` : '';
}

/**
 * Projects' payment keys are sealed with a local key unless a KMS key is named: a file
 * under DATA_DIR (created on first start, mode 600), or a fresh key in memory when the data
 * is in memory too. Returns how, for the start-up line.
 */
async function setUpPaymentKeys(config: LocalConfig) {
  let keyed = config;
  if (!config.PAYMENT_KMS_KEY_ID && !config.PAYMENT_KEY_FILE) {
    if (config.DATA_DIR === ':memory:') {
      const master = randomBytes(32);
      return {
        keyring: localKeyring(master),
        tokenKeys: config.CUSTOMER_TOKEN_KEYS ? tokenKeysFor(config) : localTokenKeys(master),
        description: 'with a key kept in memory',
      };
    }
    const file = await ensureLocalKeyFile(config.DATA_DIR);
    if (file.warning) console.warn(file.warning);
    keyed = { ...config, PAYMENT_KEY_FILE: file.path };
  }
  return {
    keyring: keyringFor(keyed),
    tokenKeys: tokenKeysFor(keyed),
    description: keyed.PAYMENT_KMS_KEY_ID
      ? `with KMS key ${keyed.PAYMENT_KMS_KEY_ID}`
      : `with the key in ${keyed.PAYMENT_KEY_FILE}`,
  };
}

main().catch((error: unknown) => {
  console.error(error instanceof ConfigError || error instanceof DynamoLocalError ? error.message : error);
  process.exit(1);
});
