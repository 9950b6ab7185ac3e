import { randomBytes } from 'node:crypto';
import { type DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import Stripe from 'stripe';
import { BenchError, timed } from './bench-harness.ts';

/** The billing bench rows: a bare Query of a customer partition, and webhook processing. */
export async function billingRows(options: {
  client: DynamoDBDocumentClient;
  tableName: string;
  serverUrl: string;
  project: { id: number; shareId: string };
  webhookSecret: string;
  iterations: number;
}) {
  const { client, tableName, serverUrl, project, webhookSecret, iterations } = options;
  const customerBaseline = await timed(
    'baseline: Query customer partition',
    '1 item',
    iterations,
    () =>
      client.send(
        new QueryCommand({
          TableName: tableName,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': `$pricing#projectId_${String(project.id).padStart(12, '0')}` },
          ConsistentRead: true,
        }),
      ),
    5,
  );
  // Built before the timing, as a sender has its event ready; the signature is part of the call.
  const payloads = Array.from({ length: iterations }, (_, i) =>
    JSON.stringify({
      id: `evt_${randomBytes(8).toString('hex')}`,
      object: 'event',
      type: 'customer.subscription.updated',
      created: Math.floor(Date.now() / 1000),
      data: {
        object: {
          id: 'sub_bench',
          object: 'subscription',
          status: 'active',
          customer: 'cus_bench',
          metadata: { projectId: String(project.id), planId: '1', customerId: `hook-${i % 20}` },
          items: { data: [{ quantity: 1, price: { recurring: { interval: 'month' } } }] },
        },
      },
    }),
  );
  const webhook = await timed(
    'POST /api/payments/webhook/{shareId}',
    'signed event',
    iterations,
    async (i) => {
      const payload = payloads[i] as string;
      const response = await fetch(`${serverUrl}/api/payments/webhook/${project.shareId}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'stripe-signature': Stripe.webhooks.generateTestHeaderString({ payload, secret: webhookSecret }),
        },
        body: payload,
      });
      await response.arrayBuffer();
      if (response.status !== 200) throw new BenchError(`webhook: got ${response.status}`);
    },
    0,
  );
  return { customerBaseline, webhook };
}
