// A project delete in two steps: one transaction takes the project out of every read (its
// item becomes a pending sweep record), and a sweep, run later and as often as needed,
// removes the rest.

import { deleteAll } from './batch.ts';
import { sweepChanges } from './changes.ts';
import { sweepCustomers } from './customers.ts';
import type { ProjectSweepItem } from './entities/project-sweep.ts';
import { sweepExperimentCounts } from './experiments.ts';
import { sweepPlanVersions } from './plan-versions.ts';
import { getProjectItem } from './projects.ts';
import { db } from './service.ts';
import { writeTransaction } from './transactions.ts';
import type { ProjectEntity, ProjectKey } from './types.ts';
import { sweepUsage } from './usage.ts';
import { sweepWebhooksOut } from './webhooks-out.ts';

export type { ProjectSweepItem };

/** Tells a sweep when to stop between two batches (its time is up, the process stops). */
export interface SweepBudget {
  exhausted(): boolean;
}

export type SweepOutcome = 'swept' | 'unfinished' | 'not_found';

/**
 * Sweeps of what a deleted project owns outside its partition (billing's customers, say),
 * run after the partition is empty and before the sweep record goes. Each must be
 * idempotent and may stop early ('unfinished'): the next run starts it again.
 */
export type OutsideSweep = (project: ProjectSweepItem, budget: SweepBudget) => Promise<'done' | 'unfinished'>;
/** A sweep that deletes all it owns of the project in one run. */
const whole =
  (sweep: (projectId: number) => Promise<unknown>): OutsideSweep =>
  async (project) => {
    await sweep(project.projectId);
    return 'done';
  };
export const outsidePartitionSweeps: OutsideSweep[] = [
  whole(sweepCustomers),
  whole(sweepChanges),
  whole(sweepUsage),
  whole(sweepPlanVersions),
  whole(sweepWebhooksOut),
  whole(sweepExperimentCounts),
];

const MAX_RETIRE_ATTEMPTS = 3;

/**
 * The first step of a delete, in one transaction: the project item (and its feature head)
 * goes and its sweep record comes. From then on every read misses the project (they all
 * start from the project item or its head), its slug is free, and every write into it is
 * refused (each checks the project item and its share id in its own transaction). Returns
 * the record, or 'not_found'; with `revision` (If-Match), only while the project's revision
 * is still that one, else 'stale'.
 */
export async function retireProject(
  key: ProjectKey,
  revision?: number,
): Promise<ProjectSweepItem | 'not_found' | 'stale'> {
  for (let attempt = 0; attempt < MAX_RETIRE_ATTEMPTS; attempt++) {
    const project = await getProjectItem(key);
    if (!project) return 'not_found';
    const { projectId, ownerId, slug, shareId } = project;
    const sweep = { projectId, ownerId, slug, shareId, deletedAt: new Date().toISOString() };
    const outcome = await writeTransaction(({ project: projects, projectSweep, featureHead }) => [
      projects
        .delete(key)
        .where((attributes, operations) =>
          revision === undefined
            ? operations.eq(attributes.shareId, shareId)
            : `${operations.eq(attributes.shareId, shareId)} AND ${operations.eq(attributes.revision, revision)}`,
        )
        .commit(),
      projectSweep.create(sweep).commit(),
      // The part reads' stand-in for the project item goes with it.
      featureHead.delete(key).commit(),
    ]);
    if (outcome.committed) return sweep;
    if (revision !== undefined) return 'stale';
    // A concurrent delete took it first (the next read misses it), or it is another project
    // by now: look again.
  }
  return 'not_found';
}

/** Every sweep not finished yet, oldest project first. */
export async function pendingSweeps(): Promise<ProjectSweepItem[]> {
  const { data } = await db().entities.projectSweep.query.pending({}).go({ pages: 'all', consistent: true });
  return data;
}

const MAX_SWEEP_PASSES = 6;

/** Deletes a batch of any member entity's items: ElectroDB takes each key out of its item. */
type AnyEntity = Parameters<typeof deleteAll<unknown>>[0];
type ChildAlias = Exclude<ProjectEntity, 'project'>;

/**
 * Deletes one page of the deleted project's items at a time, and starts over until a pass
 * finds none; then the outside sweeps, then the record. Safe to run again, and at the same
 * time as another run of the same sweep: each step deletes what it finds, which nothing else
 * recreates.
 *
 * The items are those of its partition (owner + slug) that carry its share id: a project
 * created since with the same slug shares the partition, never the share id.
 *
 * Why no item is left behind: since the record was written, every child write is refused,
 * because each checks in its own transaction either the project item with this share id
 * (feature and plan creates, counted deletes), or the feature head, which goes with it
 * (every write that assigns features). Once a pass has deleted the parents, a
 * later pass sees every child there will ever be.
 */
export async function sweepProject(projectId: number, budget: SweepBudget): Promise<SweepOutcome> {
  const { data: sweep } = await db().entities.projectSweep.get({ projectId }).go({ consistent: true });
  if (!sweep) return 'not_found';
  for (let pass = 0; ; pass++) {
    const found = await sweepPass(sweep, budget);
    if (found === 'unfinished') return 'unfinished';
    if (found === 0) break;
    if (pass >= MAX_SWEEP_PASSES) throw new Error(`Project sweep still finds ${found} items after ${pass} passes`);
  }
  for (const outside of outsidePartitionSweeps) {
    if (budget.exhausted() || (await outside(sweep, budget)) === 'unfinished') return 'unfinished';
  }
  await db().entities.projectSweep.delete({ projectId }).go();
  return 'swept';
}

/** One pass over the deleted project's items, page by page: how many it deleted. */
async function sweepPass(sweep: ProjectSweepItem, budget: SweepBudget): Promise<number | 'unfinished'> {
  const { entities } = db();
  let found = 0;
  let cursor: string | null = null;
  do {
    if (budget.exhausted()) return 'unfinished';
    const page: Awaited<ReturnType<typeof readPage>> = await readPage(sweep, cursor);
    // The project item itself went with the record; one found here is another project's.
    const children = (Object.keys(page.data) as ProjectEntity[])
      .filter((alias): alias is ChildAlias => alias !== 'project')
      .map((alias) => ({ entity: entities[alias] as AnyEntity, items: page.data[alias] as unknown[] }))
      .filter(({ items }) => items.length > 0);
    for (const { items } of children) found += items.length;
    await Promise.all(children.map(({ entity, items }) => deleteAll(entity, items)));
    cursor = page.cursor;
  } while (cursor);
  return found;
}

/**
 * Items read (and then deleted) per page: 40 BatchWriteItem calls, well under a second on
 * DynamoDB, so a sweep stops close to when its budget says.
 */
const SWEEP_PAGE_ITEMS = 1_000;

/** One page of the deleted project's items, strongly consistent. */
const readPage = (sweep: ProjectSweepItem, cursor: string | null) =>
  db()
    .collections.projectData({ ownerId: sweep.ownerId, slug: sweep.slug })
    .where(({ shareId }, { eq }) => eq(shareId, sweep.shareId))
    .go({ cursor, consistent: true, limit: SWEEP_PAGE_ITEMS });
