import { allocateIds } from '#db/ids.ts';
import { entriesOf } from '#db/plan-assignments.ts';
import { db } from '#db/service.ts';
import { planDefaults } from '#domain/plans/schemas.ts';
import { totalDynamoRequests } from '#shared/request-context.ts';
import { apiCaller, inBatches, printColumns, type Row, range, summarize, warmKey } from './bench-harness.ts';

/**
 * The scale table of `npm run bench`: one project of 200 features grown from 1,000 to 20,000
 * assignments, every feature in every plan. 1,000 and 5,000 (25 plans, the limit) are built
 * through the API; 10,000 and 20,000 (50 and 100 plans, past the limit, to show how reads
 * grow) by writing the plans straight into the table, as the service stores them
 * (assignments in their plan's item). At each size: DynamoDB requests per call (pages, for
 * the whole project reads) and p50 of the endpoints whose reads should not grow, and of GET
 * project and GET share, which read what they return.
 */

const FEATURES = 200;
const STEPS = [
  { assignments: 1_000, plans: 5, through: 'API' },
  { assignments: 5_000, plans: 25, through: 'API' },
  { assignments: 10_000, plans: 50, through: 'table' },
  { assignments: 20_000, plans: 100, through: 'table' },
] as const;
const DEFAULT_ITERATIONS = 20;

type Column = 'project' | 'share' | 'features' | 'planFeatures' | 'putPlan' | 'putFeature' | 'postPlan';
const columns: Record<Column, string> = {
  project: 'GET project',
  share: 'GET share',
  features: 'GET features',
  planFeatures: 'GET plan features',
  putPlan: 'PUT plan (1 field)',
  putFeature: 'PUT feature (1 field)',
  postPlan: 'POST plan (10 features)',
};

function scaleIterations(): number {
  const n = Number(process.env.BENCH_SCALE_ITERATIONS ?? DEFAULT_ITERATIONS);
  return Number.isInteger(n) && n > 0 ? n : DEFAULT_ITERATIONS;
}

/** Runs the scale steps against the local server at `serverUrl`; prints the table and returns whether the counts hold. */
export async function printScaleTable(serverUrl: string, ownerId: string): Promise<boolean> {
  const iterations = scaleIterations();
  const key = await warmKey(ownerId, serverUrl);
  const api = apiCaller(serverUrl, key.key);
  const call: typeof api = async (...args) => {
    await key.keepWarm();
    return api(...args);
  };
  const measure = async (
    method: string,
    path: string,
    expected: number,
    body: () => unknown,
    after?: (r: unknown) => Promise<void>,
  ) => {
    await after?.(await call(method, path, expected, body()));
    const latencies: number[] = [];
    const requests: number[] = [];
    for (let i = 0; i < iterations; i++) {
      await key.keepWarm();
      const before = totalDynamoRequests();
      const start = performance.now();
      const result = await call(method, path, expected, body());
      latencies.push(performance.now() - start);
      requests.push(totalDynamoRequests() - before);
      await after?.(result);
    }
    return summarize(path, latencies, requests, '');
  };

  const started = performance.now();
  const project = await call('POST', '/api/v1/projects', 201, { name: 'Scale' });
  const base = `/api/v1/projects/${project.slug}`;
  const scope = { ownerId, slug: project.slug as string, shareId: project.shareId as string };
  const features: number[] = (
    await inBatches(FEATURES, (n) =>
      call('POST', `${base}/features`, 201, { name: `F${n}`, basePrice: 1, isCountable: true, usageCount: 100 }),
    )
  ).map((f) => f.id);
  const refs = features.map((featureId) => ({ featureId, multiplier: 2 }));
  const planIds: number[] = [];

  /** Plans with every feature, as the service stores them: the assignments in the plan's item. */
  async function writePlansDirectly(count: number) {
    const [ids, assignmentIds] = await Promise.all([
      allocateIds('plan', count),
      allocateIds('planFeature', count * FEATURES),
    ]);
    const now = new Date().toISOString();
    await db()
      .entities.plan.put(
        ids.map((planId, p) => ({
          ...planDefaults,
          ...scope,
          planId,
          name: `P${planId}`,
          basePrice: 10,
          createdAt: now,
          updatedAt: now,
          assigned: entriesOf(
            features.map((featureId, f) => ({
              featureId,
              multiplier: 2,
              planFeatureId: assignmentIds[p * FEATURES + f] as number,
            })),
            now,
          ),
        })),
      )
      .go({ concurrency: 8 });
    planIds.push(...ids);
  }

  const table: { assignments: number; cells: Partial<Record<Column, Row>> }[] = [];
  for (const step of STEPS) {
    const missing = step.plans - planIds.length;
    if (step.through === 'API') {
      const created = await inBatches(missing, (n) =>
        call('POST', `${base}/plans`, 201, { name: `P${n}`, basePrice: 10, features: refs }),
      );
      planIds.push(...created.map((p) => p.id));
    } else {
      await writePlansDirectly(missing);
    }
    const first = planIds[0] as number;
    const last = planIds.at(-1) as number;
    let flip = 0;
    const cells: Partial<Record<Column, Row>> = {
      project: await measure('GET', base, 200, () => undefined),
      share: await measure('GET', `/api/share/${project.shareId}`, 200, () => undefined),
      features: await measure('GET', `${base}/features`, 200, () => undefined),
      planFeatures: await measure('GET', `${base}/plans/${last}/features`, 200, () => undefined),
      putPlan: await measure('PUT', `${base}/plans/${first}`, 200, () => ({ name: `P ${flip++}` })),
      putFeature: await measure('PUT', `${base}/features/${features[0]}`, 200, () => ({ name: `F ${flip++}` })),
    };
    if (step.plans < 25) {
      // Each created plan is deleted again (not timed), so the project keeps its size.
      cells.postPlan = await measure(
        'POST',
        `${base}/plans`,
        201,
        () => ({ name: 'Ten', basePrice: 1, features: refs.slice(0, 10) }),
        async (plan) => {
          await call('DELETE', `${base}/plans/${(plan as { id: number }).id}`, 200);
        },
      );
    }
    table.push({ assignments: step.assignments, cells });
  }

  const header = ['assignments', ...Object.values(columns)];
  const rows = table.map(({ assignments, cells }) => [
    assignments.toLocaleString('en-US'),
    ...(Object.keys(columns) as Column[]).map((c) => {
      const cell = cells[c];
      return cell ? `${range(cell.requestsMin, cell.requestsMax)}, ${cell.p50.toFixed(1)} ms` : 'at the plan limit';
    }),
  ]);
  console.log(
    `\nScale: ${FEATURES} features, every feature in every plan; 1,000 and 5,000 built through the API, 10,000 and 20,000 written to the table; DynamoDB requests per call (pages for GET project and GET share), p50 of ${iterations} calls (${((performance.now() - started) / 1000).toFixed(0)} s)`,
  );
  printColumns(header, rows, header.length);

  // The part reads: requests at the largest size within 1.5× of the smallest's (p50 printed, not judged: the machine is shared).
  const small = table[0]?.cells;
  const big = table.at(-1)?.cells;
  let ok = true;
  for (const c of ['features', 'planFeatures', 'putPlan', 'putFeature'] as const) {
    const [a, b] = [small?.[c], big?.[c]];
    if (!a || !b) continue;
    const requests = b.requestsMax / a.requestsMax;
    console.log(
      `${columns[c]}: 20,000 vs 1,000 assignments: requests ${requests.toFixed(2)}×, p50 ${(b.p50 / a.p50).toFixed(2)}×`,
    );
    if (requests > 1.5) ok = false;
  }
  return ok;
}
