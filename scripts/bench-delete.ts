import { limits } from '#contract/limits.ts';
import { entriesOf } from '#db/plan-assignments.ts';
import { pendingSweeps } from '#db/project-sweep.ts';
import { db } from '#db/service.ts';
import { apiRequest } from '#dev/api-request.ts';
import { LocalSweeper } from '#dev/local-sweeper.ts';
import { featureDefaults } from '#domain/features/schemas.ts';
import { createApiKey } from '#domain/keys/keys.ts';
import { planDefaults } from '#domain/plans/schemas.ts';
import { totalDynamoRequests } from '#shared/request-context.ts';
import { startBenchStack } from './bench-stack.ts';

/**
 * `npm run bench:delete`: a project at the documented limits (every feature on every plan),
 * written straight to an in-memory DynamoDB Local, then DELETE through the HTTP API: how
 * long it takes to answer and how many DynamoDB requests it makes, then how long the
 * background sweep takes to leave nothing of the project in the table.
 */
const FEATURES = limits.featuresPerProject;
const PLANS = limits.plansPerProject;
const TABLE_NAME = 'pricing-bench-delete';

async function main(): Promise<void> {
  // The sweep queue holds the hand-over, so the DELETE is timed alone; the sweep then runs on its own clock.
  const held: number[] = [];
  const { server, stop } = await startBenchStack({
    table: TABLE_NAME,
    dataDir: ':memory:',
    ports: { sweeps: () => ({ enqueue: async (projectId) => void held.push(projectId) }) },
  });
  try {
    const { key } = await createApiKey({ ownerId: 'bench', permission: 'read_write' });
    const created = await apiRequest(`${server.url}/api/v1/projects`, key, 'POST', { name: 'Limits' });
    const project = JSON.parse(created.text);
    const scope = { ownerId: 'bench', slug: project.slug, shareId: project.shareId };
    const now = new Date().toISOString();
    const stamps = { createdAt: now, updatedAt: now };
    const seedStart = performance.now();
    const { feature, plan } = db().entities;
    const ids = (n: number) => Array.from({ length: n }, (_, i) => i + 1);
    const text = { name: 'x'.repeat(100), description: '', basePrice: 1 };
    await feature
      .put(
        ids(FEATURES).map((featureId) => ({
          ...scope,
          ...stamps,
          ...text,
          ...featureDefaults,
          featureId,
        })),
      )
      .go({ concurrency: 8 });
    await plan
      .put(
        ids(PLANS).map((planId) => ({
          ...scope,
          ...stamps,
          ...text,
          ...planDefaults,
          planId,
          // As the service stores them: each plan's assignments in its item.
          assigned: entriesOf(
            ids(FEATURES).map((featureId) => ({ featureId, planFeatureId: planId * 1000 + featureId, multiplier: 1 })),
            now,
          ),
        })),
      )
      .go({ concurrency: 8 });
    const items = FEATURES + PLANS;
    console.log(`Seeded ${items} items in ${((performance.now() - seedStart) / 1000).toFixed(1)} s.`);

    const before = totalDynamoRequests();
    const started = performance.now();
    const deleted = await apiRequest(`${server.url}/api/v1/projects/${project.slug}`, key, 'DELETE');
    const deleteMs = performance.now() - started;
    const deleteRequests = totalDynamoRequests() - before;
    if (deleted.status !== 200) throw new Error(`DELETE answered ${deleted.status}: ${deleted.text}`);
    const read = await apiRequest(`${server.url}/api/v1/projects/${project.slug}`, key, 'GET');

    const sweeper = new LocalSweeper();
    const sweepBefore = totalDynamoRequests();
    const sweepStart = performance.now();
    for (const id of held) await sweeper.enqueue(id);
    await sweeper.idle();
    const sweepMs = performance.now() - sweepStart;
    const sweepRequests = totalDynamoRequests() - sweepBefore;
    const left = (await pendingSweeps()).length;
    const { data } = await db().collections.share({ shareId: project.shareId }).go({ pages: 'all' });
    const remaining = Object.values(data).reduce((n, list) => n + (list as unknown[]).length, 0);

    console.log(`Project at the limits: ${FEATURES} features, ${PLANS} plans, ${FEATURES * PLANS} assignments.`);
    console.log(
      `DELETE answered ${deleted.status} in ${deleteMs.toFixed(0)} ms, ${deleteRequests} DynamoDB requests; GET after it: ${read.status}.`,
    );
    console.log(
      `Background sweep: ${(sweepMs / 1000).toFixed(1)} s, ${sweepRequests} DynamoDB requests; items left: ${remaining}, pending sweeps: ${left}.`,
    );
    if (read.status !== 404 || remaining !== 0 || left !== 0) process.exitCode = 1;
  } finally {
    await stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
