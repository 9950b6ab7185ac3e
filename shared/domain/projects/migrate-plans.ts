// The operator's one-off migration of stored data to the layouts of issue 14 (docs/decisions.md,
// "Reads of a part"): projects stored before feature heads get theirs, plans stored at their
// old key move under their assignments' prefix, so no read pays for either any more, and
// assignment items stored before fold into their plan's map. The service heals the first two
// on its own (a part read writes the head, a plan's first write moves it), but a plan never
// written would pay one GetItem on every read for ever; nothing but this folds the items,
// whose ~490 bytes each make the whole-project reads of the largest projects page every
// ~2,000 assignments. Safe to run again and while the service runs: every write is
// conditional on what was read, and what changed since is skipped and counted.
import { type PlanAt, readLegacyPlans, readPlansAndAssignmentItems } from '#db/plan-keys.ts';
import { foldAssignmentItems, movePlan } from '#db/plans.ts';
import { readFeatureHead, readFeatureRange, writeFeatureHead } from '#db/project-parts.ts';
import { scanProjects } from '#db/projects.ts';
import type { PlanFeatureItem, ProjectItem, ProjectScope } from '#db/types.ts';

export interface PlanMigrationOptions {
  /** Read and count only: write nothing. */
  dryRun: boolean;
  /** Only this owner's projects (the Scan still reads the whole table). */
  ownerId?: string | undefined;
}

export interface PlanMigration {
  dryRun: boolean;
  /** Project items found, whatever their state. */
  projects: number;
  /** Feature heads written (in a dry run: to write) for projects that had none. */
  headsWritten: number;
  /** Plans moved (in a dry run: to move) from their old key under their assignments' prefix. */
  plansMoved: number;
  /** Assignment items folded (in a dry run: to fold) into their plan's item. */
  assignmentsFolded: number;
  skipped: {
    /** Projects marked deleting by an older delete: their items are left to its sweep. */
    deletingProjects: number;
    /** Projects deleted (or their slug taken by a new one) between the Scan and a write. */
    goneProjects: number;
    /** Plans written (which moves them) or deleted between their read and their move. */
    changedPlans: number;
    /**
     * Plans whose fold met a concurrent write (of the plan or one of its assignment items, or a
     * feature delete): what was folded stays folded, a rerun folds the rest.
     */
    changedFolds: number;
    /**
     * Assignment items whose plan or feature is gone (a delete's sweep cut short): readers skip
     * them; left for the next delete of that id, or the project's sweep.
     */
    orphanAssignments: number;
  };
  /**
   * Plans found at both keys, which no write makes: left as they are for a person to look at
   * (whole-project reads would list the plan twice).
   */
  conflicts: { ownerId: string; slug: string; planId: number }[];
}

/** Projects of one Scan page migrated at once: a few requests each, in a few round trips. */
const CONCURRENCY = 8;

/**
 * Finds every project (a Scan of the table, page by page) and migrates each live one: its
 * feature head when it has none, then each of its plans still at the old key, then its
 * assignment items into their plans. Items of a
 * deleted project (another share id in the partition, or a project marked deleting) are
 * left to its sweep.
 */
export async function migratePlans({ dryRun, ownerId }: PlanMigrationOptions): Promise<PlanMigration> {
  const summary: PlanMigration = {
    dryRun,
    projects: 0,
    headsWritten: 0,
    plansMoved: 0,
    assignmentsFolded: 0,
    skipped: { deletingProjects: 0, goneProjects: 0, changedPlans: 0, changedFolds: 0, orphanAssignments: 0 },
    conflicts: [],
  };
  for await (const page of scanProjects(ownerId)) {
    let next = 0;
    const worker = async () => {
      while (next < page.length) await migrateProject(page[next++] as ProjectItem, summary);
    };
    await Promise.all(Array.from({ length: Math.min(CONCURRENCY, page.length) }, worker));
  }
  return summary;
}

async function migrateProject(project: ProjectItem, summary: PlanMigration): Promise<void> {
  summary.projects++;
  if (project.deletingAt) {
    summary.skipped.deletingProjects++;
    return;
  }
  const { ownerId, slug, shareId } = project;
  const key = { ownerId, slug };
  if (!(await readFeatureHead(key))) {
    // Conditional on the project item with this share id, as the part reads' healing is.
    if (!summary.dryRun && (await writeFeatureHead(project)) === 'project_gone') {
      summary.skipped.goneProjects++;
      return;
    }
    summary.headsWritten++;
  }
  // A deleted project's plans in the same partition carry another share id: its sweep's.
  const plans = (await readLegacyPlans(key)).filter((plan) => plan.shareId === shareId);
  for (const plan of plans) {
    if (summary.dryRun) {
      summary.plansMoved++;
      continue;
    }
    const outcome = await movePlan({ ownerId, slug, shareId }, plan);
    if (outcome === 'moved') summary.plansMoved++;
    else if (outcome === 'stale') summary.skipped.changedPlans++;
    else if (outcome === 'taken') summary.conflicts.push({ ownerId, slug, planId: plan.planId });
    else {
      summary.skipped.goneProjects++;
      return;
    }
  }
  if ((await foldAssignments({ ownerId, slug, shareId }, summary)) === 'project_gone') summary.skipped.goneProjects++;
}

/**
 * Folds the project's assignment items into their plans' maps, plan by plan (a transaction
 * per ADD_BATCH items, shared/db/plans.ts foldAssignmentItems). The features with the head's
 * count of feature deletes are read first, then the plans with the items in one Query: an
 * item of a feature not read is a delete's leftover, and a feature deleted after the read
 * fails the fold's check on the count. Items of another share id are a deleted project's, its
 * sweep's; items of a plan not found, or found at both keys (a conflict, for a person), are
 * left as they are.
 */
async function foldAssignments(scope: ProjectScope, summary: PlanMigration): Promise<'done' | 'project_gone'> {
  const { shareId, ...key } = scope;
  const { head, features } = await readFeatureRange(key);
  const { plans, assignmentItems } = await readPlansAndAssignmentItems(key);
  const featureIds = new Set(features.filter((f) => f.shareId === shareId).map((f) => f.featureId));
  const plansById = groupBy(
    plans.filter(({ plan }) => plan.shareId === shareId),
    ({ plan }) => plan.planId,
  );
  const ours = assignmentItems.filter((item) => item.shareId === shareId);
  const orphan = (item: PlanFeatureItem) => !plansById.has(item.planId) || !featureIds.has(item.featureId);
  summary.skipped.orphanAssignments += ours.filter(orphan).length;
  const byPlan = groupBy(
    ours.filter((item) => !orphan(item) && plansById.get(item.planId)?.length === 1),
    (item) => item.planId,
  );
  for (const [planId, items] of byPlan) {
    if (summary.dryRun) {
      summary.assignmentsFolded += items.length;
      continue;
    }
    const [{ plan, layout }] = plansById.get(planId) as [PlanAt];
    const { outcome, folded } = await foldAssignmentItems(scope, plan, layout, items, head?.featureDeletes ?? 0);
    summary.assignmentsFolded += folded;
    if (outcome === 'project_gone') return outcome;
    if (outcome === 'stale') summary.skipped.changedFolds++;
  }
  return 'done';
}

function groupBy<T>(list: T[], keyOf: (value: T) => number): Map<number, T[]> {
  const groups = new Map<number, T[]>();
  for (const value of list) {
    const group = groups.get(keyOf(value));
    if (group) group.push(value);
    else groups.set(keyOf(value), [value]);
  }
  return groups;
}
