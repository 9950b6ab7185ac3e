import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/**
 * The yardstick of `npm run cold-start`: a Lambda entry holding only the DynamoDB client and a
 * DocumentClient, built at init as ours are. Bundled like the functions (infra/bundling.ts).
 */
const client = DynamoDBDocumentClient.from(new DynamoDBClient({ region: process.env.AWS_REGION }));

export const handler = async () => ({ statusCode: 200, body: typeof client.send });
