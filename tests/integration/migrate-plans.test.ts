/**
 * The operator's one-off migration (`npm run cli -- migrate plans`,
 * shared/domain/projects/migrate-plans.ts): plans stored at their old key move under their
 * assignments' prefix, projects stored before feature heads get theirs, and nothing a reader
 * can see changes (answers and ETags byte for byte, no change-log entry). It runs beside the
 * service: a plan written or deleted meanwhile, or a project deleted, is skipped, and a plan
 * never has two items.
 *
 * Every run here is scoped to an owner of its own (--owner): the integration files share one
 * table, and another file's legacy plans and headless projects are its own to test.
 */
import { beforeAll, describe, expect, test } from 'vitest';
import { readLegacyPlans } from '#db/plan-keys.ts';
import { movePlan } from '#db/plans.ts';
import { db } from '#db/service.ts';
import { migratePlans } from '#domain/projects/migrate-plans.ts';
import { type ApiClient, newOwner, useLocalServer } from '../fixtures/api.ts';
import { runCli } from '../fixtures/cli.ts';
import { recordDynamoCalls } from '../fixtures/dynamo-calls.ts';
import { makeFeature, makePlan, makeProject } from '../fixtures/factories.ts';
import {
  entityOf,
  itemsOfOwner,
  legacyPlanSortKey,
  removeStoredAttribute,
  storeAsLegacyPlan,
  storedPlanItems,
} from '../fixtures/table.ts';

const SUBPROCESS = 30_000;

const server = useLocalServer();
const record = recordDynamoCalls();
let visitor: ApiClient;

beforeAll(() => {
  visitor = server.client(null);
});

/** An owner of its own: a migration scoped to it counts exactly what the test made. */
async function freshOwner() {
  const { ownerId, writeKey } = await newOwner('migrate');
  const api = server.client(writeKey);
  await api.get('/api/v1/projects'); // the key's record is cached from here on
  return { ownerId, api };
}

const newSortKey = (planId: number) => `$projectData#planFeature_1#planId_${String(planId).padStart(12, '0')}`;

/**
 * A project with three features, two plans stored at their old key (the first with two
 * features, the second with one) and one at the new key.
 */
async function projectWithLegacyPlans(api: ApiClient, ownerId: string, body: Record<string, unknown> = {}) {
  const project = await makeProject(api, body);
  const features = [];
  for (let i = 0; i < 3; i++) features.push(await makeFeature(api, project.slug));
  const [f0, f1, f2] = features.map((f) => f.id as number);
  const legacy = [
    await makePlan(api, project.slug, {
      features: [
        { featureId: f0, multiplier: 2 },
        { featureId: f1, multiplier: 1 },
      ],
    }),
    await makePlan(api, project.slug, { isPopular: true, features: [{ featureId: f2, multiplier: 3 }] }),
  ];
  const current = await makePlan(api, project.slug, { features: [{ featureId: f0, multiplier: 1 }] });
  const stored = { ownerId, slug: project.slug as string, shareId: project.shareId as string };
  for (const plan of legacy) await storeAsLegacyPlan(stored, plan.id);
  return { project, legacy, current, stored, base: `/api/v1/projects/${project.slug}` };
}

type Setup = Awaited<ReturnType<typeof projectWithLegacyPlans>>;

/** Every answer that shows the plans, as text with its ETag. */
async function answers(api: ApiClient, { project, legacy, current, base }: Setup) {
  const paths = [
    '/api/v1/projects',
    base,
    `${base}/plans`,
    `${base}/changes`,
    ...[...legacy, current].map((plan) => `${base}/plans/${plan.id}/features`),
  ];
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

/** The owner's stored items, plans without their sort key (the one thing a move changes), in a stable order. */
const storedButPlanKeys = async (ownerId: string) =>
  (await itemsOfOwner(ownerId))
    .map((item) => (entityOf(item) === 'plan' ? { ...item, sk: 'any' } : item))
    .map((item) => JSON.stringify(item, Object.keys(item).sort()))
    .sort();

const nothingSkipped = { deletingProjects: 0, goneProjects: 0, changedPlans: 0, changedFolds: 0, orphanAssignments: 0 };

describe('migrate plans', () => {
  test('moves every legacy plan under its prefix: answers, ETags and attributes as they were, one request fewer', async () => {
    const { ownerId, api } = await freshOwner();
    const setup = await projectWithLegacyPlans(api, ownerId);
    const { legacy, stored, base } = setup;
    // A plan from before versions has no version: the move does not give it one.
    const [versionless] = await storedPlanItems(stored, legacy[1].id);
    await removeStoredAttribute(versionless as Record<string, unknown>, 'version');

    const before = await answers(api, setup);
    const storedBefore = await storedButPlanKeys(ownerId);
    // A PUT that changes nothing only reads: the features, the plan's prefix, and its old key.
    const unchanged = { name: legacy[0].name };
    const readBefore = await record(() => api.put(`${base}/plans/${legacy[0].id}`, unchanged));
    expect(readBefore.result.status).toBe(200);
    expect(readBefore.calls.map((c) => c.command).sort()).toEqual(['GetItemCommand', 'QueryCommand', 'QueryCommand']);

    const summary = await migratePlans({ dryRun: false, ownerId });
    expect(summary).toEqual({
      dryRun: false,
      projects: 1,
      headsWritten: 0,
      plansMoved: 2,
      assignmentsFolded: 0,
      skipped: nothingSkipped,
      conflicts: [],
    });

    for (const plan of [...legacy, setup.current]) {
      expect((await storedPlanItems(stored, plan.id)).map((item) => item.sk)).toEqual([newSortKey(plan.id)]);
    }
    expect(await answers(api, setup)).toEqual(before);
    // Every attribute as it was (version, updatedAt, none added), the project's revision too.
    expect(await storedButPlanKeys(ownerId)).toEqual(storedBefore);
    expect((await storedPlanItems(stored, legacy[1].id))[0]).not.toHaveProperty('version');

    const readAfter = await record(() => api.put(`${base}/plans/${legacy[0].id}`, unchanged));
    expect(readAfter.result.text).toBe(readBefore.result.text);
    expect(readAfter.result.headers.get('etag')).toBe(readBefore.result.headers.get('etag'));
    expect(readAfter.calls.map((c) => c.command).sort()).toEqual(['QueryCommand', 'QueryCommand']);

    // The versionless plan is written as any other from here on.
    const put = await api.put(`${base}/plans/${legacy[1].id}`, { name: 'Written' });
    expect(put.status, put.text).toBe(200);
    expect((await storedPlanItems(stored, legacy[1].id))[0]).toMatchObject({ name: 'Written', version: 1 });
  });

  test('a second run finds nothing to do and writes nothing', async () => {
    const { ownerId, api } = await freshOwner();
    await projectWithLegacyPlans(api, ownerId);
    await projectWithLegacyPlans(api, ownerId);
    expect(await migratePlans({ dryRun: false, ownerId })).toMatchObject({ projects: 2, plansMoved: 4 });
    const storedAfterFirst = await itemsOfOwner(ownerId);
    const second = await record(() => migratePlans({ dryRun: false, ownerId }));
    expect(second.result).toEqual({
      dryRun: false,
      projects: 2,
      headsWritten: 0,
      plansMoved: 0,
      assignmentsFolded: 0,
      skipped: nothingSkipped,
      conflicts: [],
    });
    expect(second.calls.map((c) => c.command)).not.toContain('TransactWriteItemsCommand');
    expect(second.calls.map((c) => c.command)).not.toContain('TransactWriteCommand');
    expect(await itemsOfOwner(ownerId)).toEqual(storedAfterFirst);
  });

  test('a dry run counts and writes nothing; the run gives a headless project its head', async () => {
    const { ownerId, api } = await freshOwner();
    const { stored, base } = await projectWithLegacyPlans(api, ownerId);
    // As a project stored before feature heads existed.
    await db().entities.featureHead.delete({ ownerId, slug: stored.slug }).go();
    const storedBefore = await itemsOfOwner(ownerId);

    const dry = await migratePlans({ dryRun: true, ownerId });
    expect(dry).toEqual({
      dryRun: true,
      projects: 1,
      headsWritten: 1,
      plansMoved: 2,
      assignmentsFolded: 0,
      skipped: nothingSkipped,
      conflicts: [],
    });
    expect(await itemsOfOwner(ownerId)).toEqual(storedBefore);

    expect(await migratePlans({ dryRun: false, ownerId })).toEqual({ ...dry, dryRun: false });
    const heads = (await itemsOfOwner(ownerId)).filter((item) => entityOf(item) === 'featureHead');
    expect(heads.map((head) => head.shareId)).toEqual([stored.shareId]);
    const features = await record(() => api.get(`${base}/features`));
    expect(features.result.status).toBe(200);
    expect(features.calls.map((c) => c.command)).toEqual(['QueryCommand']);
  });

  test('a plan a write moved, or deleted, after the migration read it is skipped, never stored twice', async () => {
    const { ownerId, api } = await freshOwner();
    const { legacy, stored, base } = await projectWithLegacyPlans(api, ownerId);
    const read = await readLegacyPlans(stored);
    expect(read.map((plan) => plan.planId)).toEqual(legacy.map((plan) => plan.id));
    const [moved, deleted] = read as [(typeof read)[0], (typeof read)[0]];

    expect((await api.put(`${base}/plans/${moved.planId}`, { name: 'Moved by a write' })).status).toBe(200);
    expect((await api.delete(`${base}/plans/${deleted.planId}`)).status).toBe(200);
    expect(await movePlan(stored, moved)).toBe('stale');
    expect(await movePlan(stored, deleted)).toBe('stale');

    const [item, ...more] = await storedPlanItems(stored, moved.planId);
    expect(more).toEqual([]);
    expect(item).toMatchObject({ sk: newSortKey(moved.planId), name: 'Moved by a write', version: 2 });
    expect(await storedPlanItems(stored, deleted.planId)).toEqual([]);
  });

  test('PUTs racing the migration: each plan is one item, at the new key, with its edit', async () => {
    const { ownerId, api } = await freshOwner();
    const setups = [await projectWithLegacyPlans(api, ownerId), await projectWithLegacyPlans(api, ownerId)];
    const plans = setups.flatMap(({ legacy, stored, base }) => legacy.map((plan) => ({ plan, stored, base })));
    const [summary, ...puts] = await Promise.all([
      migratePlans({ dryRun: false, ownerId }),
      ...plans.map(({ plan, base }) => api.put(`${base}/plans/${plan.id}`, { name: `Raced ${plan.id}` })),
    ]);
    for (const put of puts) expect(put.status, put.text).toBe(200);
    // A PUT that commits before the migration reads the project's old plans moves its plan
    // itself: the migration never sees that one.
    expect(summary.plansMoved + summary.skipped.changedPlans).toBeLessThanOrEqual(plans.length);
    expect(summary.conflicts).toEqual([]);
    for (const { plan, stored } of plans) {
      const [item, ...more] = await storedPlanItems(stored, plan.id);
      expect(more).toEqual([]);
      // Moved or not first, the PUT committed once.
      expect(item).toMatchObject({ sk: newSortKey(plan.id), name: `Raced ${plan.id}`, version: 2 });
    }
  });

  test('a project deleted after the migration read it: its plan is not moved', async () => {
    const { ownerId, api } = await freshOwner();
    const { legacy, stored } = await projectWithLegacyPlans(api, ownerId);
    const [read] = await readLegacyPlans(stored);
    // The project item goes as a delete takes it; its items wait for their sweep.
    await db().entities.project.delete({ ownerId, slug: stored.slug }).go();
    expect(await movePlan(stored, read as NonNullable<typeof read>)).toBe('project_gone');
    expect((await storedPlanItems(stored, legacy[0].id)).map((item) => item.sk)).toEqual([
      legacyPlanSortKey(legacy[0].id),
    ]);
  });

  test("leaves a deleted project's leftovers and a project marked deleting as they are", async () => {
    const { ownerId, api } = await freshOwner();
    // Deleted, not swept yet: its slug is taken by a new project with legacy plans of its own.
    const gone = await projectWithLegacyPlans(api, ownerId, { slug: 'reused' });
    const { entities } = db();
    await entities.project.delete({ ownerId, slug: 'reused' }).go();
    await entities.featureHead.delete({ ownerId, slug: 'reused' }).go();
    const reborn = await projectWithLegacyPlans(api, ownerId, { slug: 'reused' });
    // Marked deleting by an older delete (before heads), its sweep still to come.
    const deleting = await projectWithLegacyPlans(api, ownerId);
    await entities.project.patch({ ownerId, slug: deleting.stored.slug }).set({ deletingAt: '2026-01-01' }).go();
    await entities.featureHead.delete({ ownerId, slug: deleting.stored.slug }).go();
    const untouched = async () =>
      (await itemsOfOwner(ownerId)).filter((item) => item.shareId !== reborn.stored.shareId);
    const before = await untouched();

    expect(await migratePlans({ dryRun: false, ownerId })).toEqual({
      dryRun: false,
      projects: 2,
      headsWritten: 0,
      plansMoved: 2,
      assignmentsFolded: 0,
      skipped: { ...nothingSkipped, deletingProjects: 1 },
      conflicts: [],
    });
    expect(await untouched()).toEqual(before);
    for (const { legacy, stored } of [gone, deleting]) {
      for (const plan of legacy) {
        expect((await storedPlanItems(stored, plan.id)).map((item) => item.sk)).toEqual([legacyPlanSortKey(plan.id)]);
      }
    }
    for (const plan of reborn.legacy) {
      expect((await storedPlanItems(reborn.stored, plan.id)).map((item) => item.sk)).toEqual([newSortKey(plan.id)]);
    }
  });
});

describe('npm run cli -- migrate plans', () => {
  const lines = (text: string) => text.split('\n').filter((line) => line.trim() !== '');

  test(
    'prints what it would do, then what it did, as text or one JSON line; exit 0',
    async () => {
      const { ownerId, api } = await freshOwner();
      const { stored, legacy } = await projectWithLegacyPlans(api, ownerId);

      const dry = await runCli(['migrate', 'plans', '--dry-run', '--owner', ownerId]);
      expect(dry.stderr).toBe('');
      expect(dry.status).toBe(0);
      expect(lines(dry.stdout)).toEqual([
        'Dry run: nothing written.',
        'Projects seen: 1',
        'Feature heads to write: 0',
        'Plans to move: 2',
        'Assignment items to fold into their plan: 0',
        'Skipped: 0 project(s) being deleted, 0 project(s) deleted meanwhile, 0 plan(s) written or deleted meanwhile',
        'Skipped in the fold: 0 plan(s) written meanwhile (run again to finish), 0 assignment item(s) of a deleted plan or feature',
      ]);
      expect((await storedPlanItems(stored, legacy[0].id)).map((item) => item.sk)).toEqual([
        legacyPlanSortKey(legacy[0].id),
      ]);

      const json = await runCli(['migrate', 'plans', '--owner', ownerId, '--json']);
      expect(json.stderr).toBe('');
      expect(json.status).toBe(0);
      expect(lines(json.stdout)).toHaveLength(1);
      expect(JSON.parse(json.stdout)).toEqual({
        dryRun: false,
        projects: 1,
        headsWritten: 0,
        plansMoved: 2,
        assignmentsFolded: 0,
        skipped: nothingSkipped,
        conflicts: [],
      });

      const again = await runCli(['migrate', 'plans', '--owner', ownerId]);
      expect(again.status).toBe(0);
      expect(again.stdout).toContain('Plans moved: 0');
    },
    SUBPROCESS,
  );

  test(
    'over the whole table, a dry run reads every project and writes nothing',
    async () => {
      const { ownerId, api } = await freshOwner();
      await projectWithLegacyPlans(api, ownerId);
      const before = await itemsOfOwner(ownerId);
      const result = await runCli(['migrate', 'plans', '--dry-run', '--json']);
      expect(result.stderr).toBe('');
      expect(result.status).toBe(0);
      const summary = JSON.parse(result.stdout);
      expect(summary.projects).toBeGreaterThanOrEqual(1);
      expect(summary.plansMoved).toBeGreaterThanOrEqual(2);
      expect(await itemsOfOwner(ownerId)).toEqual(before);
    },
    SUBPROCESS,
  );

  test(
    'a plan stored at both keys is named on stderr and left as it is; exit 1',
    async () => {
      const { ownerId, api } = await freshOwner();
      const { stored, current } = await projectWithLegacyPlans(api, ownerId);
      await storeAsLegacyPlan(stored, current.id, { keepNewKey: true });

      const result = await runCli(['migrate', 'plans', '--owner', ownerId]);
      expect(result.status).toBe(1);
      expect(result.stdout).toContain('Plans moved: 2');
      expect(lines(result.stderr)).toHaveLength(1);
      expect(result.stderr).toContain(`Plan ${current.id}`);
      expect(result.stderr).toContain(stored.slug);
      expect((await storedPlanItems(stored, current.id)).map((item) => item.sk).sort()).toEqual(
        [newSortKey(current.id), legacyPlanSortKey(current.id)].sort(),
      );
    },
    SUBPROCESS,
  );

  test(
    'an unknown migrate command exits 2 with the usage',
    async () => {
      const result = await runCli(['migrate', 'features']);
      expect(result.status).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr).toContain('features');
      expect(result.stderr).toContain('migrate plans');
    },
    SUBPROCESS,
  );
});
