import { apiRequest } from '#dev/api-request.ts';
import { totalDynamoRequests } from '#shared/request-context.ts';
import { type Row, summarize } from './bench-billing.ts';

/**
 * Plan versions (lifecycle.md §1): a priced write beside a presentation write of the same plan
 * (the version step rides in the write's own transaction: no request more), a grandfathered
 * customer's warm entitlement read (still one request), and a migration's throughput.
 */
export async function versionRows(options: {
  serverUrl: string;
  key: string;
  iterations: number;
  customers: number;
}): Promise<{ rows: Row[]; notes: string[] }> {
  const { serverUrl, key, iterations } = options;
  const call = async (method: string, path: string, body?: unknown, expected = 200) => {
    const response = await apiRequest(`${serverUrl}/api/v1${path}`, key, method, body);
    if (response.status !== expected) throw new Error(`${method} ${path}: ${response.status} ${response.text}`);
    return JSON.parse(response.text);
  };
  const project = await call('POST', '/projects', { name: 'Versions bench' }, 201);
  const base = `/projects/${project.slug}`;
  const feature = await call(
    'POST',
    `${base}/features`,
    { name: 'Calls', basePrice: 0, isCountable: true, usageCount: 100 },
    201,
  );
  const plan = await call(
    'POST',
    `${base}/plans`,
    { name: 'Pro', basePrice: 10, features: [{ featureId: feature.id }] },
    201,
  );
  const planPath = `${base}/plans/${plan.id}`;
  await call('PUT', `${base}/customers/held`, { planId: plan.id });

  const rows: Row[] = [];
  const timed = async (label: string, size: string, run: (i: number) => Promise<unknown>) => {
    const latencies: number[] = [];
    const requests: number[] = [];
    for (let i = 0; i < iterations + 3; i++) {
      const before = totalDynamoRequests();
      const start = performance.now();
      await run(i);
      if (i < 3) continue;
      latencies.push(performance.now() - start);
      requests.push(totalDynamoRequests() - before);
    }
    rows.push(summarize(label, latencies, requests, size));
  };
  await timed('PUT plan, presentation (name)', 'no version', (i) => call('PUT', planPath, { name: `Pro ${i}` }));
  await timed('PUT plan, priced (basePrice)', 'version + 1', (i) => call('PUT', planPath, { basePrice: 11 + i }));
  await timed('PUT plan feature, priced (multiplier)', 'version + 1', (i) =>
    call('PUT', `${planPath}/features/${feature.id}`, { multiplier: 2 + i }),
  );
  // The held version is read once per container and kept (versions never change).
  await call('GET', `${base}/customers/held/entitlements`);
  await timed('GET entitlements, grandfathered (warm)', 'held v1', () =>
    call('GET', `${base}/customers/held/entitlements`),
  );

  const { customers } = options;
  for (let i = 0; i < customers; i += 20) {
    await Promise.all(
      Array.from({ length: Math.min(20, customers - i) }, (_, j) =>
        call('PUT', `${base}/customers/m-${String(i + j).padStart(6, '0')}`, { planId: plan.id }),
      ),
    );
  }
  await call('PUT', planPath, { basePrice: 99 });
  const start = performance.now();
  const answer = await call('POST', `${planPath}/migrate`, { at: 'now' }, 202);
  // Large migrations continue in the background: wait until none is left on an older version.
  for (;;) {
    const { versions } = await call('GET', `${planPath}/versions`);
    if (versions.slice(1).every((v: { customers: number }) => v.customers === 0)) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const seconds = (performance.now() - start) / 1000;
  const notes = [
    `Migration of ${answer.migrating} manual customers at once (no Stripe calls): ${seconds.toFixed(1)} s, ${Math.round(answer.migrating / seconds)} customers/s on DynamoDB Local.`,
  ];
  return { rows, notes };
}
