import { apiCaller, type BenchOn, inBatches, type Row, timed } from './bench-harness.ts';

/**
 * Plan versions (lifecycle.md §1): a priced write beside a presentation write of the same plan
 * (the version step rides in the write's own transaction: no request more), a grandfathered
 * customer's warm entitlement read (still one request), and a migration's throughput.
 */
export async function versionRows(options: BenchOn & { customers: number }): Promise<{ rows: Row[]; notes: string[] }> {
  const { serverUrl, key, iterations, customers } = options;
  const call = apiCaller(serverUrl, () => key);
  const project = await call('POST', '/api/v1/projects', 201, { name: 'Versions bench' });
  const base = `/api/v1/projects/${project.slug}`;
  const feature = await call('POST', `${base}/features`, 201, {
    name: 'Calls',
    basePrice: 0,
    isCountable: true,
    usageCount: 100,
  });
  const plan = await call('POST', `${base}/plans`, 201, {
    name: 'Pro',
    basePrice: 10,
    features: [{ featureId: feature.id }],
  });
  const planPath = `${base}/plans/${plan.id}`;
  await call('PUT', `${base}/customers/held`, 200, { planId: plan.id });

  const row = (label: string, size: string, work: (i: number) => Promise<unknown>) =>
    timed(label, size, iterations, work, 3);
  const rows: Row[] = [
    await row('PUT plan, presentation (name)', 'no version', (i) => call('PUT', planPath, 200, { name: `Pro ${i}` })),
    await row('PUT plan, priced (basePrice)', 'version + 1', (i) => call('PUT', planPath, 200, { basePrice: 11 + i })),
    await row('PUT plan feature, priced (multiplier)', 'version + 1', (i) =>
      call('PUT', `${planPath}/features/${feature.id}`, 200, { multiplier: 2 + i }),
    ),
  ];
  // The held version is read once per container and kept (versions never change).
  await call('GET', `${base}/customers/held/entitlements`, 200);
  rows.push(
    await row('GET entitlements, grandfathered (warm)', 'held v1', () =>
      call('GET', `${base}/customers/held/entitlements`, 200),
    ),
  );

  await inBatches(
    customers,
    (i) => call('PUT', `${base}/customers/m-${String(i).padStart(6, '0')}`, 200, { planId: plan.id }),
    20,
  );
  await call('PUT', planPath, 200, { basePrice: 99 });
  const start = performance.now();
  const answer = await call('POST', `${planPath}/migrate`, 202, { at: 'now' });
  // Large migrations continue in the background: wait until none is left on an older version.
  for (;;) {
    const { versions } = await call('GET', `${planPath}/versions`, 200);
    if (versions.slice(1).every((v: { customers: number }) => v.customers === 0)) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const seconds = (performance.now() - start) / 1000;
  const notes = [
    `Migration of ${answer.migrating} manual customers at once (no Stripe calls): ${seconds.toFixed(1)} s, ${Math.round(answer.migrating / seconds)} customers/s on DynamoDB Local.`,
  ];
  return { rows, notes };
}
