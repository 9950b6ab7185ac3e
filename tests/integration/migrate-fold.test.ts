/**
 * The migration's fold (`npm run cli -- migrate plans`, shared/domain/projects/migrate-plans.ts;
 * shared/db/plans.ts foldAssignmentItems): assignment items stored before move into their
 * plan's map, ADD_BATCH to a transaction, with their ids, multipliers and dates; nothing a
 * reader sees changes; a write racing it leaves each assignment in exactly one form; leftovers
 * of a delete (a deleted plan's or feature's items, a deleted project's) are left alone; and a
 * project of 10,000 assignments stored as items reads in one page afterwards.
 *
 * Every run is scoped to an owner of its own (--owner): the integration files share one table.
 */
import { beforeAll, describe, expect, test } from 'vitest';
import { readPlansAndAssignmentItems, readStoredPlan } from '#db/plan-keys.ts';
import { foldAssignmentItems, writeAssignment } from '#db/plans.ts';
import { readFeatureRange } from '#db/project-parts.ts';
import { db } from '#db/service.ts';
import { changeEntry } from '#domain/changes.ts';
import { migratePlans } from '#domain/projects/migrate-plans.ts';
import { type ApiClient, newOwner, useLocalServer } from '../fixtures/api.ts';
import { recordDynamoCalls } from '../fixtures/dynamo-calls.ts';
import { featureItem, makeFeature, makePlan, makeProject, planFeatureItem, planItem } from '../fixtures/factories.ts';
import {
  entityOf,
  itemsOfOwner,
  itemsOfProject,
  storeAsAssignmentItems,
  storedAssignments,
  storedPlanItems,
} from '../fixtures/table.ts';

const server = useLocalServer();
const record = recordDynamoCalls();
let visitor: ApiClient;

beforeAll(() => {
  visitor = server.client(null);
});

async function freshOwner() {
  const { ownerId, writeKey } = await newOwner('fold');
  const api = server.client(writeKey);
  await api.get('/api/v1/projects'); // the key's record is cached from here on
  return { ownerId, api };
}

const nothingSkipped = { deletingProjects: 0, goneProjects: 0, changedPlans: 0, changedFolds: 0, orphanAssignments: 0 };
const summaryOf = (fields: Record<string, unknown>) => ({
  dryRun: false,
  projects: 1,
  headsWritten: 0,
  plansMoved: 0,
  assignmentsFolded: 0,
  skipped: nothingSkipped,
  conflicts: [],
  ...fields,
});

/** `count` features, 50 at a time. */
async function features(api: ApiClient, slug: string, count: number): Promise<number[]> {
  const ids: number[] = [];
  for (let i = 0; i < count; i += 50) {
    const created = await Promise.all(
      Array.from({ length: Math.min(50, count - i) }, (_, n) =>
        api.post(`/api/v1/projects/${slug}/features`, { name: `F${i + n}`, basePrice: 1 + n }),
      ),
    );
    for (const r of created) expect(r.status, r.text).toBe(201);
    ids.push(...created.map((r) => r.body.id as number));
  }
  return ids;
}

/**
 * A project with a plan of 100 assignments stored as items (three transactions' worth), a plan
 * of 5 with 3 as items and 2 in its map, and a plan with its map only.
 */
async function projectWithItems(api: ApiClient, ownerId: string, body: Record<string, unknown> = {}) {
  const project = await makeProject(api, body);
  const slug = project.slug as string;
  const stored = { ownerId, slug, shareId: project.shareId as string };
  const ids = await features(api, slug, 100);
  const big = await makePlan(api, slug, {
    features: ids.map((featureId, n) => ({ featureId, multiplier: 1 + (n % 4) })),
  });
  const mixed = await makePlan(api, slug, {
    features: ids.slice(0, 3).map((featureId) => ({ featureId, multiplier: 2 })),
  });
  const inMap = await makePlan(api, slug, { features: ids.slice(0, 2).map((featureId) => ({ featureId })) });
  await storeAsAssignmentItems(stored, big.id);
  await storeAsAssignmentItems(stored, mixed.id);
  const added = await api.post(`/api/v1/projects/${slug}/plans/${mixed.id}/features`, {
    features: ids.slice(3, 5).map((featureId) => ({ featureId, multiplier: 3 })),
  });
  expect(added.status, added.text).toBe(200);
  return { project, stored, ids, plans: [big, mixed, inMap], base: `/api/v1/projects/${slug}` };
}

type Setup = Awaited<ReturnType<typeof projectWithItems>>;

/** Every answer that shows the assignments, as text with its ETag. */
async function answers(api: ApiClient, { project, plans, base }: Setup) {
  const paths = [base, `${base}/plans`, `${base}/changes`, ...plans.map((plan) => `${base}/plans/${plan.id}/features`)];
  const read: Record<string, { text: string; etag: string | null }> = {};
  for (const path of paths) {
    const response = await api.get(path);
    expect(response.status, `${path}: ${response.text}`).toBe(200);
    read[path] = { text: response.text, etag: response.headers.get('etag') };
  }
  const share = await visitor.get(`/api/share/${project.shareId}`);
  expect(share.status).toBe(200);
  read.share = { text: share.text, etag: share.headers.get('etag') };
  return read;
}

/** Each stored assignment as `plan:feature:planFeatureId:multiplier:createdAt`, whatever its form. */
async function assignmentsOf({ ownerId, slug, shareId }: Setup['stored']) {
  const items = (await itemsOfProject(ownerId, slug, shareId)).filter((item) => item.shareId === shareId);
  return items
    .flatMap((item) => {
      if (entityOf(item) === 'planFeature')
        return [`${item.planId}:${item.featureId}:${item.planFeatureId}:${item.multiplier}:${item.createdAt}`];
      if (entityOf(item) !== 'plan') return [];
      const entries = (item.assigned ?? {}) as Record<string, { i: number; m: number; c: string }>;
      return Object.entries(entries).map(([f, e]) => `${item.planId}:${f}:${e.i}:${e.m}:${e.c}`);
    })
    .sort();
}

const formsOf = async (stored: Setup['stored']) =>
  storedAssignments(await itemsOfProject(stored.ownerId, stored.slug, stored.shareId)).filter(
    (a) => a.shareId === stored.shareId,
  );

const itemForms = async (stored: Setup['stored']) => (await formsOf(stored)).filter((a) => a.form === 'item');

/** Whether no assignment is stored in both forms (or twice). */
async function expectOneFormEach(stored: Setup['stored']) {
  const keys = (await formsOf(stored)).map((a) => `${a.planId}:${a.featureId}`);
  expect(new Set(keys).size).toBe(keys.length);
}

describe('migrate plans folds assignment items into their plan', () => {
  test('a dry run counts and writes nothing; the run folds every item, answers and ETags byte for byte; a rerun folds nothing', async () => {
    const { ownerId, api } = await freshOwner();
    const setup = await projectWithItems(api, ownerId);
    const { stored, plans } = setup;
    expect((await itemForms(stored)).length).toBe(103);
    const before = await answers(api, setup);
    const assignmentsBefore = await assignmentsOf(stored);
    const storedBefore = await itemsOfOwner(ownerId);

    const dry = await migratePlans({ dryRun: true, ownerId });
    expect(dry).toEqual(summaryOf({ dryRun: true, assignmentsFolded: 103 }));
    expect(await itemsOfOwner(ownerId)).toEqual(storedBefore);

    const run = await record(() => migratePlans({ dryRun: false, ownerId }));
    expect(run.result).toEqual(summaryOf({ assignmentsFolded: 103 }));
    // 100 items: 48 + 48 + 4; 3 items: 1.
    expect(run.calls.filter((c) => c.command.startsWith('TransactWrite'))).toHaveLength(4);
    expect(await itemForms(stored)).toEqual([]);
    // Each assignment with its own id, multiplier and date, now in its plan's item.
    expect(await assignmentsOf(stored)).toEqual(assignmentsBefore);
    expect(await answers(api, setup)).toEqual(before);
    const [bigItem] = await storedPlanItems(stored, plans[0].id);
    expect(Object.keys(bigItem?.assigned as object)).toHaveLength(100);

    const again = await record(() => migratePlans({ dryRun: false, ownerId }));
    expect(again.result).toEqual(summaryOf({}));
    expect(again.calls.map((c) => c.command).filter((c) => c.startsWith('TransactWrite'))).toEqual([]);
    expect(await answers(api, setup)).toEqual(before);
  }, 120_000);

  test('a multiplier changed or an assignment removed after the fold read it: the fold is stale, the change kept, a rerun finishes', async () => {
    const { ownerId, api } = await freshOwner();
    const setup = await projectWithItems(api, ownerId);
    const { stored, plans, ids, base } = setup;
    const [, mixed] = plans;
    const key = { ownerId, slug: stored.slug };
    // What the migration reads, before the writes.
    const { head } = await readFeatureRange(key);
    const { plans: read, assignmentItems } = await readPlansAndAssignmentItems(key);
    const plan = read.find((p) => p.plan.planId === mixed.id);
    const items = assignmentItems.filter((a) => a.planId === mixed.id);
    expect(items).toHaveLength(3);

    const path = `${base}/plans/${mixed.id}/features`;
    expect((await api.put(`${path}/${ids[0]}`, { multiplier: 9 })).status).toBe(200);
    expect((await api.delete(`${path}?featureId=${ids[1]}`)).status).toBe(200);
    const after = await answers(api, setup);
    const fold = await foldAssignmentItems(
      stored,
      plan?.plan as NonNullable<typeof plan>['plan'],
      'prefix',
      items,
      head?.featureDeletes ?? 0,
    );
    expect(fold).toEqual({ outcome: 'stale', folded: 0 });
    await expectOneFormEach(stored);
    expect(await answers(api, setup)).toEqual(after);

    const summary = await migratePlans({ dryRun: false, ownerId });
    expect(summary).toEqual(summaryOf({ assignmentsFolded: 102 }));
    expect(await itemForms(stored)).toEqual([]);
    expect(await answers(api, setup)).toEqual(after);
    const multipliers = (await api.get(path)).body.features.map(
      (f: { feature: { id: number }; multiplier: number }) => [f.feature.id, f.multiplier],
    );
    expect(multipliers).toEqual([
      [ids[0], 9],
      [ids[2], 2],
      [ids[3], 3],
      [ids[4], 3],
    ]);
  }, 120_000);

  test('a write that read an item before the fold fails on it and reads again, finding the entry', async () => {
    const { ownerId, api } = await freshOwner();
    const setup = await projectWithItems(api, ownerId);
    const { stored, plans, ids, base, project } = setup;
    const [, mixed] = plans;
    const readBefore = await readStoredPlan({ ownerId, slug: stored.slug }, mixed.id);
    const itemRead = readBefore.assignments.find((a) => a.featureId === ids[0]);
    expect(await migratePlans({ dryRun: false, ownerId })).toMatchObject({ assignmentsFolded: 103 });

    const change = changeEntry(
      project.id,
      { keyId: 'test' },
      { type: 'planFeature', id: itemRead?.planFeatureId as number },
      { multiplier: 2 },
      { multiplier: 7 },
    );
    const written = await writeAssignment(
      stored,
      readBefore.plan as NonNullable<typeof readBefore.plan>,
      'prefix',
      itemRead as NonNullable<typeof itemRead>,
      7,
      change,
      undefined,
    );
    expect(written).toBe('stale');
    expect((await api.put(`${base}/plans/${mixed.id}/features/${ids[0]}`, { multiplier: 7 })).status).toBe(200);
    await expectOneFormEach(stored);
    expect(await itemForms(stored)).toEqual([]);
    const entry = (await formsOf(stored)).find((a) => a.planId === mixed.id && a.featureId === ids[0]);
    expect(entry).toMatchObject({ form: 'plan', multiplier: 7 });
  }, 120_000);

  test('PUTs and removals racing the fold: every assignment in one form, every change applied; a rerun finishes', async () => {
    const { ownerId, api } = await freshOwner();
    const setup = await projectWithItems(api, ownerId);
    const { stored, plans, ids, base } = setup;
    const [big] = plans;
    const path = `${base}/plans/${big.id}/features`;
    const changed = ids.slice(0, 100).filter((_, n) => n % 10 === 0);
    const removed = ids.slice(0, 100).filter((_, n) => n % 10 === 5);
    const [summary, ...writes] = await Promise.all([
      migratePlans({ dryRun: false, ownerId }),
      ...changed.map((featureId) => api.put(`${path}/${featureId}`, { multiplier: 8 })),
      ...removed.map((featureId) => api.delete(`${path}?featureId=${featureId}`)),
    ]);
    for (const w of writes) expect(w.status, w.text).toBe(200);
    expect(summary.conflicts).toEqual([]);
    await expectOneFormEach(stored);
    await migratePlans({ dryRun: false, ownerId });
    expect(await itemForms(stored)).toEqual([]);
    const now = (await api.get(path)).body.features as { feature: { id: number }; multiplier: number }[];
    expect(now).toHaveLength(100 - removed.length);
    for (const f of now) {
      const n = ids.indexOf(f.feature.id);
      expect(f.multiplier, String(n)).toBe(changed.includes(f.feature.id) ? 8 : 1 + (n % 4));
    }
  }, 120_000);

  test("items of a deleted plan or feature, and a deleted project's, are left as they are and counted", async () => {
    const { ownerId, api } = await freshOwner();
    const { entities } = db();
    // Deleted, not swept yet: its slug taken by a new project with items of its own.
    const gone = await projectWithItems(api, ownerId, { slug: 'reused' });
    await entities.project.delete({ ownerId, slug: 'reused' }).go();
    await entities.featureHead.delete({ ownerId, slug: 'reused' }).go();
    const reborn = await projectWithItems(api, ownerId, { slug: 'reused' });
    // A plan and a feature deleted by deletes whose sweep was cut short: their items stay.
    const [big, mixed] = reborn.plans;
    await entities.plan.delete({ ownerId, slug: 'reused', planId: mixed.id }).go();
    const goneFeature = reborn.ids[50] as number;
    await entities.feature.delete({ ownerId, slug: 'reused', featureId: goneFeature }).go();
    const before = await answers(api, { ...reborn, plans: [big] });
    const leftovers = async () =>
      (await itemsOfOwner(ownerId))
        .filter(
          (item) =>
            item.shareId === gone.stored.shareId ||
            (entityOf(item) === 'planFeature' && (item.planId === mixed.id || item.featureId === goneFeature)),
        )
        .map((item) => JSON.stringify(item))
        .sort();
    const left = await leftovers();
    expect(left.length).toBeGreaterThan(100);

    const summary = await migratePlans({ dryRun: false, ownerId });
    // The mixed plan's 3 items, the deleted feature's item in the big plan.
    expect(summary).toEqual(summaryOf({ assignmentsFolded: 99, skipped: { ...nothingSkipped, orphanAssignments: 4 } }));
    expect(await leftovers()).toEqual(left);
    expect((await itemForms(reborn.stored)).map((a) => a.featureId === goneFeature || a.planId === mixed.id)).toEqual([
      true,
      true,
      true,
      true,
    ]);
    expect(await answers(api, { ...reborn, plans: [big] })).toEqual(before);
  }, 120_000);
});

describe('a project of 10,000 assignments stored as items', () => {
  test('its whole-project read goes from several Query pages to one', async () => {
    const { ownerId, api } = await freshOwner();
    const project = await makeProject(api);
    const scope = { ownerId, slug: project.slug as string, shareId: project.shareId as string };
    await makeFeature(api, scope.slug); // the project's counters and head, as the API keeps them
    let nextId = 7_000_000_000 + Math.floor(Math.random() * 1e8);
    const featureIds = Array.from({ length: 200 }, () => nextId++);
    const planIds = Array.from({ length: 50 }, () => nextId++);
    const { entities } = db();
    // As stored before the 25-plan limit and assignments in their plan: written straight to the table.
    await entities.feature
      .put(featureIds.map((featureId) => featureItem({ ...scope, featureId, name: `F${featureId}` })))
      .go({ concurrency: 8 });
    await entities.plan
      .put(planIds.map((planId) => planItem({ ...scope, planId, name: `P${planId}` })))
      .go({ concurrency: 8 });
    await entities.planFeature
      .put(
        planIds.flatMap((planId) =>
          featureIds.map((featureId) => planFeatureItem({ ...scope, planId, featureId, planFeatureId: nextId++ })),
        ),
      )
      .go({ concurrency: 8 });
    const base = `/api/v1/projects/${scope.slug}`;
    const whole = () => record(() => api.get(base));

    const before = await whole();
    expect(before.result.status).toBe(200);
    expect(before.calls.length).toBeGreaterThan(1);
    const plans = before.result.body.pricingPlans as { planFeatures: unknown[] }[];
    expect(plans.map((plan) => plan.planFeatures.length)).toEqual(planIds.map(() => 200));

    expect(await migratePlans({ dryRun: false, ownerId })).toEqual(summaryOf({ assignmentsFolded: 10_000 }));
    const after = await whole();
    expect(after.calls.map((c) => c.command)).toEqual(['QueryCommand']);
    expect(after.result.text).toBe(before.result.text);
    expect(after.result.headers.get('etag')).toBe(before.result.headers.get('etag'));
  }, 300_000);
});
