import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { grantPlan } from '#domain/customers/customers.ts';
import { currentRequestContext, runInRequestContext, totalDynamoRequests } from '#shared/request-context.ts';
import { apiCaller, type BenchOn, type Row, summarize } from './bench-harness.ts';

/**
 * Webhooks out (lifecycle.md §4): what an outbox item adds to the change that writes it (a
 * customer write that sends `subscription.updated` beside one that sends nothing, in process
 * with the requests of the write alone: the event rides in the write's own transaction, no
 * request more), and the delivery from change to a receiver on loopback, with every DynamoDB
 * request it takes (the write, the dispatch and the attempt, all in this process).
 */

/** Like `timed`, counting only the requests `work` makes itself (not the dispatch it sets off). */
async function timedAlone(label: string, size: string, iterations: number, work: (i: number) => Promise<unknown>) {
  const latencies: number[] = [];
  const requests: number[] = [];
  for (let i = 0; i < 20 + iterations; i++) {
    const start = performance.now();
    const made = await runInRequestContext(async () => {
      await work(i);
      return currentRequestContext()?.dynamoRequests ?? 0;
    });
    const elapsed = performance.now() - start;
    // The dispatch the write set off (another function on AWS) runs here, untimed, rather
    // than beside the next write on the same DynamoDB Local.
    await new Promise((resolve) => setTimeout(resolve, 30));
    if (i < 20) continue;
    latencies.push(elapsed);
    requests.push(made);
  }
  return summarize(label, latencies, requests, size);
}
export async function webhookRows(options: BenchOn): Promise<{ rows: Row[]; notes: string[] }> {
  const { serverUrl, key, ownerId, iterations } = options;
  const call = apiCaller(serverUrl, () => key);
  const project = await call('POST', '/api/v1/projects', 201, { name: 'Webhooks bench' });
  const base = `/api/v1/projects/${project.slug}`;
  const plan = await call('POST', `${base}/plans`, 201, { name: 'Pro', basePrice: 10 });
  const customer = `${base}/customers/hooked`;
  await call('PUT', customer, 200, { planId: plan.id });

  // Before any endpoint exists, so no delivery runs beside the timed writes.
  const projectKey = { ownerId, slug: project.slug as string };
  const grant = (seats: number, email: string) =>
    grantPlan(projectKey, 'hooked', { planId: plan.id, status: 'active', seats, email });
  const quiet = await timedAlone('grant (in process), no event: email', 'no outbox item', iterations, (i) =>
    grant(1, `q${i}@example.com`),
  );
  const loud = await timedAlone('grant (in process), subscription.updated', '+1 outbox item', iterations, (i) =>
    grant(2 + i, 'q@example.com'),
  );

  let arrived: (() => void) | undefined;
  const receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(204).end();
      arrived?.();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  try {
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
    await call('POST', `${base}/webhook-endpoints`, 201, { url, events: ['subscription.updated'] });
    const latencies: number[] = [];
    const requests: number[] = [];
    const rounds = Math.min(iterations, 100);
    for (let i = 0; i < rounds + 5; i++) {
      const received = new Promise<void>((resolve) => {
        arrived = resolve;
      });
      const before = totalDynamoRequests();
      const start = performance.now();
      await call('PUT', customer, 200, { planId: plan.id, seats: 10_000 + i, email: 'q@example.com' });
      await received;
      const elapsed = performance.now() - start;
      // The attempt records itself and frees its slot after the answer: let it finish.
      await new Promise((resolve) => setTimeout(resolve, 20));
      if (i < 5) continue;
      latencies.push(elapsed);
      requests.push(totalDynamoRequests() - before);
    }
    const delivery = summarize(
      'change → receiver (webhook delivered)',
      latencies,
      requests,
      'write + dispatch + attempt',
    );
    const notes = [
      `webhooks out: a write that sends an event makes ${loud.requestsMax} DynamoDB request(s), one that sends none ${quiet.requestsMax} (target: 0 more; the event rides in the write's transaction); p50 ${loud.p50.toFixed(2)} ms vs ${quiet.p50.toFixed(2)} ms = ${(loud.p50 / quiet.p50).toFixed(2)}×. Delivery from the change to a receiver on loopback: p50 ${delivery.p50.toFixed(1)} ms, p95 ${delivery.p95.toFixed(1)} ms.`,
    ];
    return { rows: [quiet, loud, delivery], notes };
  } finally {
    arrived = undefined;
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
  }
}
