import { chmodSync, existsSync, lstatSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { type LocalDynamoCredential, readLocalDynamoCredential } from '#db/client.ts';
import { ALNUM, randomToken } from '#domain/random.ts';
import { ConfigError } from '#shared/config.ts';
import type { LocalConfig } from './local-config.ts';

/**
 * The embedded DynamoDB Local's credential. DynamoDB Local listens on loopback only (see
 * dev/dynamodb-local.ts) but checks no signature. Without -sharedDb it keeps one database per
 * access key id and region, so a random access key id, known only to the files below, is
 * what keeps its data from other local users and processes that reach the port.
 *
 * Persistent data: `$DATA_DIR/dynamodb-credential.json`, created on first start and reused.
 * `DATA_DIR=:memory:`: a file in a private temp dir keyed by the DynamoDB port (so the CLI of
 * that run finds it), replaced on every start and removed on stop.
 */

const CREDENTIAL_FILE_NAME = 'dynamodb-credential.json';
/** The region is part of the database's name; fixed, so AWS_REGION never hides the data. */
const LOCAL_REGION = 'us-east-1';
const UPPER_ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

/** A ConfigError: the commands print its message alone, as for a bad variable. */
export class LocalCredentialError extends ConfigError {
  constructor(message: string) {
    super(message);
    this.name = 'LocalCredentialError';
  }
}

/** 32 of 36 symbols is 165 bits; DynamoDB Local names its file after the id, so letters and digits only. */
export function newLocalCredential(): LocalDynamoCredential {
  return {
    accessKeyId: `LOCAL${randomToken(32, UPPER_ALNUM)}`,
    secretAccessKey: randomToken(40, ALNUM),
    region: LOCAL_REGION,
  };
}

/** A directory only this user can enter: created 0700, or refused when someone else's or a link. */
export function privateDir(path: string): void {
  mkdirSync(path, { recursive: true, mode: 0o700 });
  const stats = lstatSync(path);
  if (!stats.isDirectory() || (process.getuid && stats.uid !== process.getuid())) {
    throw new LocalCredentialError(`${path} is not a directory of this user: remove it or choose another DATA_DIR.`);
  }
  chmodSync(path, 0o700);
}

function memoryCredentialDir(): string {
  return join(tmpdir(), `pricing-dynamodb-local-${process.getuid?.() ?? 'user'}`);
}

/** Where the credential of the database on `port` (or in `dataDir`) is kept. */
export function localCredentialPath({ dataDir, port }: { dataDir: string; port: number }): string {
  return dataDir === ':memory:'
    ? join(memoryCredentialDir(), `port-${port}.json`)
    : join(resolve(dataDir), CREDENTIAL_FILE_NAME);
}

export interface LocalCredentialFile {
  path: string;
  credential: LocalDynamoCredential;
  /** Deletes an in-memory run's file; a persistent one stays with its data. */
  discard(): void;
}

/** Creates the credential on first start (or every start in memory) and reuses it after. */
export function ensureLocalCredential({ dataDir, port }: { dataDir: string; port: number }): LocalCredentialFile {
  const path = localCredentialPath({ dataDir, port });
  const memory = dataDir === ':memory:';
  privateDir(memory ? memoryCredentialDir() : resolve(dataDir));
  // Whatever ran on this port in memory before is gone: its file must not lead the CLI astray.
  if (!memory) rmSync(localCredentialPath({ dataDir: ':memory:', port }), { force: true });
  if (memory || !existsSync(path)) {
    // In memory a file left by a killed run is stale: its database is gone.
    if (memory) rmSync(path, { force: true });
    const credential = newLocalCredential();
    // 'wx': never through a file (or link) that is already there.
    writeFileSync(path, `${JSON.stringify(credential)}\n`, { mode: 0o600, flag: 'wx' });
    chmodSync(path, 0o600);
    return { path, credential, discard: () => (memory ? rmSync(path, { force: true }) : undefined) };
  }
  chmodSync(path, 0o600);
  return { path, credential: readLocalDynamoCredential(path), discard: () => undefined };
}

/**
 * The credential file of the DynamoDB Local that `npm start` runs on `port`: an in-memory
 * run's while one is up there (each start on a port replaces or removes it), else DATA_DIR's.
 */
export function findLocalCredential({ dataDir, port }: { dataDir: string; port: number }): string | undefined {
  const candidates = [localCredentialPath({ dataDir: ':memory:', port })];
  if (dataDir !== ':memory:') candidates.push(localCredentialPath({ dataDir, port }));
  return candidates.find((path) => existsSync(path));
}

/**
 * The configuration of the database of a running `npm start` (for the CLI and `npm run
 * seed`), found as start found it: DYNAMODB_PORT and DATA_DIR. An explicit DYNAMODB_ENDPOINT
 * is used as given, with DYNAMODB_CREDENTIAL_FILE or the AWS SDK's usual credentials.
 */
export function runningLocalDatabase(config: LocalConfig): LocalConfig {
  if (config.DYNAMODB_ENDPOINT) return config;
  const local = { ...config, DYNAMODB_ENDPOINT: `http://127.0.0.1:${config.DYNAMODB_PORT}` };
  if (config.DYNAMODB_CREDENTIAL_FILE) return local;
  const file = findLocalCredential({ dataDir: config.DATA_DIR, port: config.DYNAMODB_PORT });
  if (!file) {
    throw new LocalCredentialError(
      `No local database credential for DynamoDB Local on port ${config.DYNAMODB_PORT} (DATA_DIR ${config.DATA_DIR}): start the service with \`npm start\` (same DATA_DIR and DYNAMODB_PORT), or set DYNAMODB_ENDPOINT and TABLE_NAME.`,
    );
  }
  return { ...local, DYNAMODB_CREDENTIAL_FILE: file };
}
