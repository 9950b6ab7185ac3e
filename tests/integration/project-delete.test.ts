import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { insertFeature } from '#db/features.ts';
import { pendingSweeps, retireProject } from '#db/project-sweep.ts';
import { db } from '#db/service.ts';
import { localMigrationsFor } from '#dev/local-migrations.ts';
import { type LocalServer, startLocalServer } from '#dev/local-server.ts';
import { LocalSweeper } from '#dev/local-sweeper.ts';
import { changeEntry } from '#domain/changes.ts';
import type { SweepQueue } from '#domain/ports.ts';
import { systemClock } from '#domain/ports.ts';
import { runProjectSweep } from '#domain/projects/delete.ts';
import { compose } from '#shared/composition.ts';
import { runtimeConfig } from '#shared/config.ts';
import { stripeGatewayFor } from '#shared/payments/stripe.ts';
import { stripeWebhookVerifier } from '#shared/payments/stripe-webhooks.ts';
import { keyringFor } from '#shared/secrets/keyring.ts';
import { tokenKeysFor } from '#shared/secrets/token-keys.ts';
import { sweepMessageBody } from '#shared/sweeps/sqs-queue.ts';
import { createSweeper, STALE_SWEEP_MS, SWEEP_MARGIN_MS, type SweeperPorts } from '../../functions/sweeper/worker.ts';
import { ApiClient, newOwner } from '../fixtures/api.ts';
import { featureItem, makeFeature, makePlan, makeProject, planItem } from '../fixtures/factories.ts';
import { sqsRecord } from '../fixtures/fake-sqs.ts';
import { sweepsFinished } from '../fixtures/sweeps.ts';
import { entityOf, itemsOfProject } from '../fixtures/table.ts';

/**
 * DELETE of a project answers in the time of one transaction whatever the project's size,
 * the project is gone from every read at once, and its items are swept afterwards by a sweep
 * that can be cut short anywhere and resumed. Here the sweep queue holds the hand-overs
 * until the test runs them, so the test sees the table between the answer and the sweep.
 */

/** A sweep queue that only records: the test decides when (and whether) a sweep runs. */
class HeldSweeps implements SweepQueue {
  readonly held: number[] = [];
  async enqueue(projectId: number) {
    this.held.push(projectId);
  }
}

const held = new HeldSweeps();
let server: LocalServer;
let api: ApiClient;
let visitor: ApiClient;
let ownerId: string;

beforeAll(async () => {
  const app = compose(runtimeConfig(), {
    keyring: keyringFor,
    payments: stripeGatewayFor,
    clock: () => systemClock,
    webhooks: stripeWebhookVerifier,
    tokenKeys: tokenKeysFor,
    sweeps: () => held,
    migrations: localMigrationsFor,
  });
  server = await startLocalServer({ port: 0, app });
  const owner = await newOwner('delete');
  ownerId = owner.ownerId;
  api = new ApiClient(server.url, owner.writeKey);
  visitor = new ApiClient(server.url);
});

afterAll(async () => {
  await server?.close();
});

/** Only the items that carry this share id: a deleted project's, never a newer one's. */
const itemsOfShare = async (shareId: string) =>
  (await itemsOfProject(ownerId, `-no-slug-${shareId}`, shareId)).filter((item) => item.shareId === shareId);

/** A project with `features` features, `plans` plans and every feature on the first `assigned` plans. */
async function bigProject(slug: string, sizes: { features: number; plans: number; assigned: number }) {
  const project = await makeProject(api, { slug });
  const scope = { ownerId, slug, shareId: project.shareId };
  const { feature, plan } = db().entities;
  const base = 7_000_000_000 + Math.floor(Math.random() * 1e9);
  const featureIds = Array.from({ length: sizes.features }, (_, i) => base + i);
  const planIds = Array.from({ length: sizes.plans }, (_, i) => base + i);
  await feature.put(featureIds.map((featureId) => featureItem({ ...scope, featureId }))).go({ concurrency: 4 });
  const createdAt = new Date().toISOString();
  const assignedTo = (planId: number) =>
    Object.fromEntries(featureIds.map((featureId) => [featureId, { i: planId + featureId, m: 1, c: createdAt }]));
  await plan
    .put(
      planIds.map((planId, p) =>
        planItem({ ...scope, planId, assigned: p < sizes.assigned ? assignedTo(planId) : {} }),
      ),
    )
    .go({ concurrency: 4 });
  return { project, featureIds, planIds, count: sizes.features + sizes.plans };
}

describe('DELETE /api/v1/projects/{slug} at size', () => {
  test('answers 200 at once; every read misses the project; the slug is free; the sweep removes only the old project', async () => {
    const { project, featureIds, count } = await bigProject('big-delete', { features: 200, plans: 100, assigned: 12 });
    // The children, the project item and its feature head.
    expect((await itemsOfShare(project.shareId)).length).toBe(count + 2);

    const started = performance.now();
    const deleted = await api.delete('/api/v1/projects/big-delete');
    const deleteMs = performance.now() - started;
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ success: true });
    // One GetItem and one transaction, whatever the size (the old cascade took minutes here).
    expect(deleteMs).toBeLessThan(3_000);
    console.log(`DELETE of a project of ${count} items answered in ${deleteMs.toFixed(0)} ms`);

    // Nothing swept yet: the items are all there, yet every read misses the project.
    expect(held.held).toContain(project.id);
    const waiting = await itemsOfShare(project.shareId);
    expect(waiting.filter((item) => entityOf(item) !== 'projectSweep')).toHaveLength(count);
    expect(waiting.filter((item) => entityOf(item) === 'projectSweep')).toHaveLength(1);
    const base = '/api/v1/projects/big-delete';
    for (const path of [base, `${base}/features`, `${base}/plans`, `${base}/plans/${featureIds[0]}/features`]) {
      expect((await api.get(path)).status, path).toBe(404);
    }
    expect((await api.put(base, { name: 'x' })).status).toBe(404);
    expect((await api.post(`${base}/features`, { name: 'late', basePrice: 1 })).status).toBe(404);
    expect((await api.get('/api/v1/projects')).body.projects.map((p: { slug: string }) => p.slug)).not.toContain(
      'big-delete',
    );
    expect((await visitor.get(`/api/share/${project.shareId}`)).status).toBe(404);
    const checkout = await visitor.post('/api/payments/checkout', { shareId: project.shareId, planId: featureIds[0] });
    expect(checkout.status).toBe(404);
    const receipt = await visitor.get(`/api/payments/receipt?session_id=cs_test_x&shareId=${project.shareId}`);
    expect(receipt.status).toBe(404);
    expect((await api.delete(base)).status).toBe(404);

    // The slug is free at once, and the new project starts empty although the old items
    // still share its partition.
    const reborn = await makeProject(api, { slug: 'big-delete' });
    expect(reborn.features).toEqual([]);
    const feature = await makeFeature(api, 'big-delete');
    const plan = await makePlan(api, 'big-delete', { features: [{ featureId: feature.id }] });
    const rebornBefore = (await api.get(base)).body;
    expect(rebornBefore.features.map((f: { id: number }) => f.id)).toEqual([feature.id]);
    expect(rebornBefore.pricingPlans.map((p: { id: number }) => p.id)).toEqual([plan.id]);
    // An id of the deleted project, named under the new one: not there, and uncounted.
    expect((await api.delete(`${base}/features/${featureIds[1]}`)).status).toBe(404);

    const sweeper = new LocalSweeper();
    for (const projectId of held.held.splice(0)) await sweeper.enqueue(projectId);
    await sweeper.idle();
    expect(await itemsOfShare(project.shareId)).toEqual([]);
    expect((await pendingSweeps()).map((s) => s.projectId)).not.toContain(project.id);
    expect((await api.get(base)).body).toEqual(rebornBefore);
    const listed = (await api.get('/api/v1/projects')).body.projects.find(
      (p: { slug: string }) => p.slug === 'big-delete',
    );
    expect(listed._count).toEqual({ features: 1, pricingPlans: 1 });
    expect((await visitor.get(`/api/share/${reborn.shareId}`)).status).toBe(200);
  }, 120_000);
});

describe('the sweep is resumable', () => {
  test('cut short after a few pages, it is resumed by the next local server start and finishes', async () => {
    const { project } = await bigProject('cut-short', { features: 200, plans: 20, assigned: 10 });
    const retired = await retireProject({ ownerId, slug: 'cut-short' });
    expect(retired).not.toBe('not_found');
    // Stops after two pages, as a process killed mid-sweep would.
    let pages = 0;
    const outcome = await runProjectSweep(project.id, { exhausted: () => pages++ >= 2 });
    expect(outcome).toBe('unfinished');
    const left = await itemsOfShare(project.shareId);
    expect(left.length).toBeGreaterThan(0);
    expect((await pendingSweeps()).map((s) => s.projectId)).toContain(project.id);

    // A new start of the local server resumes every pending sweep in the background.
    const restarted = await startLocalServer({
      port: 0,
      app: compose(runtimeConfig(), {
        keyring: keyringFor,
        payments: stripeGatewayFor,
        clock: () => systemClock,
        webhooks: stripeWebhookVerifier,
        tokenKeys: tokenKeysFor,
        sweeps: () => new LocalSweeper(),
        migrations: localMigrationsFor,
      }),
    });
    try {
      await sweepsFinished(ownerId);
    } finally {
      await restarted.close();
    }
    expect(await itemsOfShare(project.shareId)).toEqual([]);
  }, 120_000);

  test("the local server's close stops a sweep between batches and loses nothing: the next run finishes it", async () => {
    const { project } = await bigProject('drained', { features: 200, plans: 20, assigned: 10 });
    await retireProject({ ownerId, slug: 'drained' });
    const sweeper = new LocalSweeper();
    await sweeper.enqueue(project.id);
    await sweeper.stop();
    const pending = (await pendingSweeps()).some((s) => s.projectId === project.id);
    // Either it finished before the stop, or its record still waits: never gone with items left.
    if (!pending) expect(await itemsOfShare(project.shareId)).toEqual([]);
    const next = new LocalSweeper();
    await next.resumePending();
    await next.idle();
    expect(await itemsOfShare(project.shareId)).toEqual([]);
    expect((await pendingSweeps()).map((s) => s.projectId)).not.toContain(project.id);
  }, 120_000);
});

describe('the sweeper function (SQS and the periodic check)', () => {
  const sqsEvent = (projectId: number) => ({ Records: [sqsRecord(sweepMessageBody(projectId))] });

  test('out of time, it hands the rest back to the queue; the next message finishes the sweep', async () => {
    const { project } = await bigProject('by-queue', { features: 200, plans: 20, assigned: 10 });
    await retireProject({ ownerId, slug: 'by-queue' });
    const queue = new HeldSweeps();
    const sweeper = createSweeper(sweeperPorts(queue));
    await sweeper(sqsEvent(project.id), { getRemainingTimeInMillis: () => SWEEP_MARGIN_MS - 1 });
    expect(queue.held).toEqual([project.id]);
    expect((await itemsOfShare(project.shareId)).length).toBeGreaterThan(0);
    await sweeper(sqsEvent(project.id), { getRemainingTimeInMillis: () => 100_000 });
    expect(queue.held).toEqual([project.id]);
    expect(await itemsOfShare(project.shareId)).toEqual([]);
    // A message for a sweep already finished (SQS delivers at least once) does nothing.
    await sweeper(sqsEvent(project.id), { getRemainingTimeInMillis: () => 100_000 });
    expect(queue.held).toEqual([project.id]);
  }, 120_000);

  test('the periodic check hands over again the sweeps pending for longer than STALE_SWEEP_MS', async () => {
    const project = await makeProject(api, { slug: 'lost-hand-over' });
    await makeFeature(api, 'lost-hand-over');
    const retired = await retireProject({ ownerId, slug: 'lost-hand-over' });
    if (typeof retired === 'string') throw new Error('not retired');
    const queue = new HeldSweeps();
    const sweeper = createSweeper(sweeperPorts(queue));
    const scheduled = { source: 'aws.events' };
    await sweeper(scheduled, { getRemainingTimeInMillis: () => 100_000 });
    expect(queue.held).not.toContain(project.id);
    // Its record, as if written STALE_SWEEP_MS ago.
    const { projectSweep } = db().entities;
    await projectSweep.delete({ projectId: project.id }).go();
    await projectSweep.create({ ...retired, deletedAt: new Date(Date.now() - STALE_SWEEP_MS).toISOString() }).go();
    await sweeper(scheduled, { getRemainingTimeInMillis: () => 100_000 });
    expect(queue.held).toContain(project.id);
    await sweeper(sqsEvent(project.id), { getRemainingTimeInMillis: () => 100_000 });
    expect(await itemsOfShare(project.shareId)).toEqual([]);
  });
});

describe('writes racing a delete', () => {
  test('a feature create that read the project before its delete adds nothing, also to a new project of that slug', async () => {
    const old = await makeProject(api, { slug: 'raced' });
    const scope = { ownerId, slug: 'raced', shareId: old.shareId };
    expect((await api.delete('/api/v1/projects/raced')).status).toBe(200);
    const late = featureItem({ ...scope, featureId: 8_000_000_000 + Math.floor(Math.random() * 1e9) });
    const entry = await changeEntry(old.id, { keyId: 'k' }, { type: 'feature', id: late.featureId }, null, {});
    expect(await insertFeature(late, 200, entry)).toBe('project_gone');
    await makeProject(api, { slug: 'raced' });
    expect(await insertFeature(late, 200, entry)).toBe('project_gone');
    const listed = (await api.get('/api/v1/projects')).body.projects.find((p: { slug: string }) => p.slug === 'raced');
    expect(listed._count).toEqual({ features: 0, pricingPlans: 0 });
    // Nothing of it but the record its sweep (held here) will remove.
    expect((await itemsOfShare(old.shareId)).map(entityOf)).toEqual(['projectSweep']);
  });
});

/** The sweeper's ports around a test's sweep queue (migrations are not exercised here). */
function sweeperPorts(sweeps: SweepQueue): SweeperPorts {
  const config = runtimeConfig();
  return { sweeps, migrations: localMigrationsFor(), keyring: keyringFor(config), payments: stripeGatewayFor(config) };
}
