// The operator's one-off migration of stored data to the layouts of issue 14 (docs/decisions.md,
// "Reads of a part"): projects stored before feature heads get theirs, and plans stored at
// their old key move under their assignments' prefix, so no read pays for either any more.
// The service heals both on its own (a part read writes the head, a plan's first write moves
// it), but a plan never written would pay one GetItem on every read for ever. Safe to run
// again and while the service runs: every write is conditional on what was read, and what
// changed since is skipped and counted.
import { readLegacyPlans } from '#db/plan-keys.ts';
import { movePlan } from '#db/plans.ts';
import { readFeatureHead, writeFeatureHead } from '#db/project-parts.ts';
import { scanProjects } from '#db/projects.ts';
import type { ProjectItem } from '#db/types.ts';

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
  skipped: {
    /** Projects marked deleting by an older delete: their items are left to its sweep. */
    deletingProjects: number;
    /** Projects deleted (or their slug taken by a new one) between the Scan and a write. */
    goneProjects: number;
    /** Plans written (which moves them) or deleted between their read and their move. */
    changedPlans: number;
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
 * feature head when it has none, then each of its plans still at the old key. Items of a
 * deleted project (another share id in the partition, or a project marked deleting) are
 * left to its sweep.
 */
export async function migratePlans({ dryRun, ownerId }: PlanMigrationOptions): Promise<PlanMigration> {
  const summary: PlanMigration = {
    dryRun,
    projects: 0,
    headsWritten: 0,
    plansMoved: 0,
    skipped: { deletingProjects: 0, goneProjects: 0, changedPlans: 0 },
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
}
