import type { Context, SQSEvent } from 'aws-lambda';
import { beforeAll, describe, expect, test, vi } from 'vitest';
import { getCustomerItem } from '#db/customers.ts';
import { db } from '#db/service.ts';
import type { CustomerItem } from '#db/types.ts';
import { loadProject } from '#domain/projects/load.ts';
import { INLINE_MIGRATION_MAX } from '#domain/versions/migrate.ts';
import { handler as plansHandler } from '../../functions/plans/handler.ts';
import { handler as sweeperHandler } from '../../functions/sweeper/handler.ts';
import { SWEEP_MARGIN_MS } from '../../functions/sweeper/worker.ts';
import { type ApiClient, newOwner, useLocalServer } from '../fixtures/api.ts';
import { httpEvent, lambdaContext } from '../fixtures/events.ts';
import { makePlan, makeProject } from '../fixtures/factories.ts';
import { sqsRecord } from '../fixtures/fake-sqs.ts';
import { rejection } from '../fixtures/rejection.ts';

/**
 * The AWS path of a large plan migration, with the functions as they are deployed: the plans
 * function's own Lambda entry answers the migrate request (202) and hands the migration to the
 * sweep queue through the real SQS client; the sweeper function's own Lambda entry takes the
 * message as SQS delivers it (an event of Records with messageId, receiptHandle, body...) and
 * moves the customers on DynamoDB Local, handing what its time budget leaves back to the queue.
 * SQS itself is a fake over HTTP (tests/fixtures/fake-sqs.ts). Only manual subscriptions move
 * here, so neither KMS nor Stripe is reached (their ports are built, as on Lambda, and unused).
 */
const { sqs } = await vi.hoisted(async () => {
  const { startFakeSqs } = await import('../fixtures/fake-sqs.ts');
  const started = await startFakeSqs();
  // What the stage gives both functions, read by their composition at import.
  process.env.SWEEP_QUEUE_URL = started.queueUrl;
  process.env.AWS_ENDPOINT_URL_SQS = started.url;
  process.env.PAYMENT_KMS_KEY_ID = 'alias/pricing-test-payment-keys';
  process.env.AWS_ACCESS_KEY_ID = 'test';
  process.env.AWS_SECRET_ACCESS_KEY = 'test';
  process.env.PROJECT_CACHE_TTL_SECONDS = '0';
  // No time for moves inside the request: a small migration is handed over too (below).
  process.env.MIGRATION_INLINE_MS = '0';
  return { sqs: started };
});

const server = useLocalServer({ webhooksOut: false });
let api: ApiClient;
let ownerId: string;
let writeKey: string;

beforeAll(async () => {
  const owner = await newOwner('migration-queue');
  ownerId = owner.ownerId;
  writeKey = owner.writeKey;
  api = server.client(owner.writeKey);
  return () => sqs.close();
});

/** POST …/migrate through the plans function's Lambda entry, as API Gateway invokes it. */
async function migrateThroughLambda(slug: string, planId: number, body: unknown) {
  const route = '/api/v1/projects/{slug}/plans/{planId}/migrate';
  const result = await plansHandler(
    httpEvent('POST', route, {
      path: `/api/v1/projects/${slug}/plans/${planId}/migrate`,
      pathParameters: { slug, planId: String(planId) },
      headers: { authorization: `Bearer ${writeKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }),
    lambdaContext(),
  );
  const answer = result as { statusCode: number; body: string };
  return { status: answer.statusCode, body: JSON.parse(answer.body) };
}

/** A Lambda context whose remaining time drops under the sweeper's margin after `checks` reads. */
function contextEnding(checks: number): Context {
  let reads = 0;
  return { ...lambdaContext(), getRemainingTimeInMillis: () => (reads++ < checks ? 600_000 : SWEEP_MARGIN_MS - 1) };
}

/** A plan whose `count` manual customers hold version 1 while the plan is at version 2. */
async function planWithHolders(count: number) {
  const project = await makeProject(api);
  const plan = await makePlan(api, project.slug, { name: 'Queued', basePrice: 5 });
  const ids = Array.from({ length: count }, (_, i) => `q-${String(i).padStart(4, '0')}`);
  const first = await api.put(`/api/v1/projects/${project.slug}/customers/${ids[0]}`, { planId: plan.id });
  expect(first.status, first.text).toBe(200);
  const { projectId } = (await loadProject({ ownerId, slug: project.slug })).project;
  // The others are copies of the first's item, in batch writes.
  const template = (await getCustomerItem(projectId, ids[0] as string)) as CustomerItem;
  await db()
    .entities.customer.put(ids.slice(1).map((customerId) => ({ ...template, customerId })))
    .go({ concurrency: 4 });
  expect((await api.put(`/api/v1/projects/${project.slug}/plans/${plan.id}`, { basePrice: 7 })).status).toBe(200);
  const versions = async () =>
    (await api.get(`/api/v1/projects/${project.slug}/plans/${plan.id}/versions`)).body.versions.map(
      (v: { version: number; customers: number }) => [v.version, v.customers],
    );
  return { slug: project.slug, planId: plan.id, ids, versions };
}

describe('a migration too large for its request, on the AWS path', () => {
  test('202 from the plans function, then the sweeper function moves everyone from the queue, across invocations', async () => {
    const count = INLINE_MIGRATION_MAX + 60;
    const { slug, planId, versions } = await planWithHolders(count);
    const sentBefore = sqs.sent.length;

    const started = await migrateThroughLambda(slug, planId, { at: 'now' });
    expect(started).toEqual({ status: 202, body: { migrating: count } });
    // Nothing moved inside the request: the work is one message on the sweep queue.
    expect(await versions()).toEqual([
      [2, 0],
      [1, count],
    ]);
    expect(sqs.sent.slice(sentBefore)).toEqual([
      {
        queueUrl: sqs.queueUrl,
        body: JSON.stringify({
          migration: { ownerId, slug, planId, fromVersions: [1], toVersion: 2, at: 'now' },
        }),
      },
    ]);

    // The first invocation runs out of time after a few groups of customers: it moves those,
    // hands the rest back to the queue as a new message and succeeds (its own message is deleted).
    const first = sqs.receive(1);
    expect(first.Records).toHaveLength(1);
    expect(await sweeperHandler(first, contextEnding(5))).toBeUndefined();
    const [v2, v1] = (await versions()) as [number, number][];
    expect(v2?.[1]).toBeGreaterThan(0);
    expect(v1?.[1]).toBeGreaterThan(0);
    expect((v2?.[1] ?? 0) + (v1?.[1] ?? 0)).toBe(count);
    const handedBack = sqs.receive(1);
    expect(handedBack.Records.map((r) => JSON.parse(r.body))).toEqual([JSON.parse(first.Records[0]?.body ?? '')]);

    // The next invocation, with time enough, finishes it; nothing more is queued.
    expect(await sweeperHandler(handedBack, contextEnding(Number.POSITIVE_INFINITY))).toBeUndefined();
    expect(await versions()).toEqual([
      [2, count],
      [1, 0],
    ]);
    expect(sqs.receive().Records).toEqual([]);

    // SQS delivers at least once: the same message again moves no one and succeeds.
    expect(await sweeperHandler(handedBack, contextEnding(Number.POSITIVE_INFINITY))).toBeUndefined();
    expect(sqs.receive().Records).toEqual([]);
    // And the migration resent through the API finds no one left.
    expect(await migrateThroughLambda(slug, planId, { at: 'now' })).toEqual({ status: 202, body: { migrating: 0 } });
  }, 180_000);

  test('a small migration whose request runs out of time for moves hands the rest over the same way', async () => {
    const { slug, planId, versions } = await planWithHolders(20);
    const sentBefore = sqs.sent.length;
    expect(await migrateThroughLambda(slug, planId, { at: 'now' })).toEqual({ status: 202, body: { migrating: 20 } });
    expect(await versions()).toEqual([
      [2, 0],
      [1, 20],
    ]);
    expect(sqs.sent.slice(sentBefore).map((m) => JSON.parse(m.body).migration.planId)).toEqual([planId]);
    expect(await sweeperHandler(sqs.receive(1), contextEnding(Number.POSITIVE_INFINITY))).toBeUndefined();
    expect(await versions()).toEqual([
      [2, 20],
      [1, 0],
    ]);
  });

  test('a message it cannot run fails the invocation (whole batch: it reports no batchItemFailures), so SQS delivers it again and then dead-letters it', async () => {
    const poison: SQSEvent = { Records: [sqsRecord('{"migration":{"planId":"nope"}}')] };
    const error = await rejection(sweeperHandler(poison, contextEnding(Number.POSITIVE_INFINITY)));
    expect(error).toBeInstanceOf(Error);
    const notJson = await rejection(
      sweeperHandler({ Records: [sqsRecord('not json')] }, contextEnding(Number.POSITIVE_INFINITY)),
    );
    expect(notJson).toBeInstanceOf(SyntaxError);
    // A migration whose plan is gone since is done, not failed: its message must not be retried.
    const { slug, planId } = await planWithHolders(1);
    expect((await api.delete(`/api/v1/projects/${slug}/plans/${planId}`)).status).toBe(200);
    const gone = sqsRecord(
      JSON.stringify({ migration: { ownerId, slug, planId, fromVersions: [1], toVersion: 2, at: 'now' } }),
    );
    expect(await sweeperHandler({ Records: [gone] }, contextEnding(Number.POSITIVE_INFINITY))).toBeUndefined();
    expect(sqs.receive().Records).toEqual([]);
  });
});
