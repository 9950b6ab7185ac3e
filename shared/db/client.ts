import { readFileSync } from 'node:fs';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ConfigError, type RuntimeConfig } from '#shared/config.ts';
import { countDynamoRequest } from '#shared/request-context.ts';
import { marshallNumbers, unmarshallNumbers } from './numbers.ts';

export interface DynamoCredentials {
  accessKeyId: string;
  secretAccessKey: string;
}

export interface DynamoOptions {
  endpoint?: string | undefined;
  region: string;
  /** Explicit credentials (the embedded DynamoDB Local's own); otherwise the SDK's default chain. */
  credentials?: DynamoCredentials | undefined;
}

/**
 * What the embedded DynamoDB Local's credential file holds. DynamoDB Local runs without
 * -sharedDb, so it keeps one database per access key id and region: this credential is the
 * only way to its data, and the region is part of it (the database must not change with
 * AWS_REGION).
 */
export interface LocalDynamoCredential extends DynamoCredentials {
  region: string;
}

const CREDENTIAL_PART = /^[A-Za-z0-9]{16,128}$/;
const REGION = /^[a-z0-9-]{1,32}$/;

export function readLocalDynamoCredential(path: string): LocalDynamoCredential {
  let parsed: Partial<Record<keyof LocalDynamoCredential, unknown>>;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new ConfigError(`Cannot read the DynamoDB credential file ${path}: ${(error as Error).message}`);
  }
  const { accessKeyId, secretAccessKey, region } = parsed ?? {};
  if (
    typeof accessKeyId !== 'string' ||
    typeof secretAccessKey !== 'string' ||
    typeof region !== 'string' ||
    !CREDENTIAL_PART.test(accessKeyId) ||
    !CREDENTIAL_PART.test(secretAccessKey) ||
    !REGION.test(region)
  ) {
    throw new ConfigError(
      `The DynamoDB credential file ${path} is not {"accessKeyId","secretAccessKey","region"} as npm start writes it.`,
    );
  }
  return { accessKeyId, secretAccessKey, region };
}

/** The client options the configuration names: a credential file wins over AWS_REGION and the default chain. */
export function dynamoOptions(
  config: Pick<RuntimeConfig, 'DYNAMODB_ENDPOINT' | 'AWS_REGION' | 'DYNAMODB_CREDENTIAL_FILE'>,
): DynamoOptions {
  if (!config.DYNAMODB_CREDENTIAL_FILE) return { endpoint: config.DYNAMODB_ENDPOINT, region: config.AWS_REGION };
  const { region, ...credentials } = readLocalDynamoCredential(config.DYNAMODB_CREDENTIAL_FILE);
  return { endpoint: config.DYNAMODB_ENDPOINT, region, credentials };
}

/** The low-level client (AttributeValues in and out) every DocumentClient of ours is built on. */
export function createDynamoClient({ endpoint, region, credentials }: DynamoOptions): DynamoDBClient {
  const client = new DynamoDBClient({
    region,
    endpoint,
    ...(credentials ? { credentials } : {}),
    maxAttempts: 4,
  });
  // The SDK's logger middleware copies every output, CPU on every warm read, for a logger we
  // never give it: our request log line carries what we need.
  client.middlewareStack.remove('loggerMiddleware');
  // One count per logical API call (retries are not counted again): the number `npm run
  // bench` reports and the request log line carries.
  client.middlewareStack.add(
    (next) => async (args) => {
      countDynamoRequest();
      return next(args);
    },
    { step: 'initialize', name: 'countDynamoRequests' },
  );
  return client;
}

/** A DocumentClient on `client`: the same configuration and middleware (the SDK shares them). */
export const documentClientOn = (client: DynamoDBClient): DynamoDBDocumentClient =>
  DynamoDBDocumentClient.from(client, {
    marshallOptions: { removeUndefinedValues: true, ...marshallNumbers },
    // A copy: the DocumentClient sets its own option on the object it is given.
    unmarshallOptions: { ...unmarshallNumbers },
  });

export const createDocumentClient = (options: DynamoOptions): DynamoDBDocumentClient =>
  documentClientOn(createDynamoClient(options));
