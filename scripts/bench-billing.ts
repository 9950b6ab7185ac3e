import { randomBytes } from 'node:crypto';
import { type DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import Stripe from 'stripe';
import { totalDynamoRequests } from '#shared/request-context.ts';

/**
 * The billing bench rows (a bare Query of a customer partition, webhook processing),
 * and the row summary every bench row uses.
 */

export interface Row {
  label: string;
  requestsMin: number;
  requestsMax: number;
  p50: number;
  p95: number;
  size: string;
}

/** Nearest-rank percentile of an ascending list: always one of the measured values. */
const percentile = (sorted: readonly number[], p: number) =>
  sorted.length === 0
    ? Number.NaN
    : (sorted[Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length))) - 1] as number);

export function summarize(label: string, latencies: number[], requests: number[], size: string): Row {
  const sorted = [...latencies].sort((a, b) => a - b);
  return {
    label,
    requestsMin: Math.min(...requests),
    requestsMax: Math.max(...requests),
    p50: percentile(sorted, 50),
    p95: percentile(sorted, 95),
    size,
  };
}

export async function billingRows(options: {
  measure: unknown;
  rows: Row[];
  client: DynamoDBDocumentClient;
  serverUrl: string;
  project: { id: number; shareId: string };
  webhookSecret: string;
  iterations: number;
}) {
  const { client, serverUrl, project, webhookSecret, iterations } = options;
  const latencies: number[] = [];
  for (let i = 0; i < 5 + iterations; i++) {
    const start = performance.now();
    await client.send(
      new QueryCommand({
        TableName: 'pricing-bench',
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': `$pricing#projectId_${String(project.id).padStart(12, '0')}` },
        ConsistentRead: true,
      }),
    );
    if (i >= 5) latencies.push(performance.now() - start);
  }
  const customerBaseline = summarize(
    'baseline: Query customer partition',
    latencies,
    latencies.map(() => 1),
    '1 item',
  );

  const hookLatencies: number[] = [];
  const requests: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const payload = JSON.stringify({
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
    });
    const before = totalDynamoRequests();
    const start = performance.now();
    const response = await fetch(`${serverUrl}/api/payments/webhook/${project.shareId}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'stripe-signature': Stripe.webhooks.generateTestHeaderString({ payload, secret: webhookSecret }),
      },
      body: payload,
    });
    await response.arrayBuffer();
    hookLatencies.push(performance.now() - start);
    requests.push(totalDynamoRequests() - before);
    if (response.status !== 200) throw new Error(`webhook: got ${response.status}`);
  }
  const webhook = summarize('POST /api/payments/webhook/{shareId}', hookLatencies, requests, 'signed event');
  return { customerBaseline, webhook };
}
