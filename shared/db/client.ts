import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { countDynamoRequest } from '#shared/request-context.ts';

export interface DynamoOptions {
  endpoint?: string | undefined;
  region: string;
}

const isLocalEndpoint = (endpoint: string) =>
  /^https?:\/\/(localhost|127\.\d+\.\d+\.\d+|\[::1\])(:\d+)?/.test(endpoint);

export function createDocumentClient({ endpoint, region }: DynamoOptions): DynamoDBDocumentClient {
  const client = new DynamoDBClient({
    region,
    endpoint,
    // DynamoDB Local runs with -sharedDb, so any credentials see the same data; fixed ones
    // spare a local user from configuring AWS credentials at all.
    ...(endpoint && isLocalEndpoint(endpoint) && !process.env.AWS_ACCESS_KEY_ID
      ? { credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }
      : {}),
    maxAttempts: 4,
  });
  // One count per logical API call (retries are not counted again): the number `npm run
  // bench` reports and the request log line carries.
  client.middlewareStack.add(
    (next) => async (args) => {
      countDynamoRequest();
      return next(args);
    },
    { step: 'initialize', name: 'countDynamoRequests' },
  );
  return DynamoDBDocumentClient.from(client, {
    marshallOptions: { removeUndefinedValues: true },
  });
}
