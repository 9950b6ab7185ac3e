import { pendingSweeps, retireProject, sweepProject } from '#db/project-sweep.ts';
import type { ProjectKey } from '#db/types.ts';
import { log } from '#shared/logger.ts';
import { projectNotFound } from '../errors.ts';
import type { SweepQueue } from '../ports.ts';
import { checkIfMatch, untilWritten } from '../versions.ts';
import { loadProject } from './load.ts';
import { slugPattern } from './slug.ts';
import { toProjectView } from './view.ts';

/**
 * Deletes the project and everything in it, in the time of one transaction whatever its
 * size: the project leaves every read at once (and its slug is free), and its items are
 * swept afterwards by whoever takes the hand-over (`sweeps`). A second DELETE is a 404.
 *
 * A failed hand-over does not fail the delete, which has happened: the sweep's record waits
 * in the table for the periodic resume (resumableSweeps).
 */
export async function deleteProject(
  sweeps: SweepQueue,
  key: ProjectKey,
  ifMatch?: { header: string; publicBaseUrl: string },
): Promise<void> {
  const retired = await untilWritten('project', { ifMatch: ifMatch?.header }, async () => {
    if (!ifMatch) return slugPattern.test(key.slug) ? retireProject(key) : 'not_found';
    // With If-Match: only while it names the project as GET answers it, read at the revision
    // the delete is then guarded by.
    const partition = await loadProject(key);
    checkIfMatch(ifMatch.header, toProjectView(partition, ifMatch.publicBaseUrl));
    return retireProject(key, partition.project.revision);
  });
  if (retired === 'not_found') throw projectNotFound(key.slug);
  try {
    await sweeps.enqueue(retired.projectId);
  } catch (error) {
    log({
      level: 'error',
      msg: 'project sweep not handed over; the periodic resume will run it',
      projectId: retired.projectId,
      error: { name: (error as Error).name, message: (error as Error).message },
    });
  }
}

/**
 * Sweeps a deleted project's items until done or until `budget` says stop ('unfinished':
 * run it again, it continues). 'not_found': nothing left to sweep (already finished).
 */
export const runProjectSweep = sweepProject;

/**
 * The deleted projects whose sweep has not finished and started at least `olderThanMs` ago:
 * at a local start, all of them (0); in a stage, those whose hand-over was lost or whose
 * messages went to the dead-letter queue.
 */
export async function resumableSweeps(olderThanMs: number, now = Date.now()): Promise<number[]> {
  return (await pendingSweeps())
    .filter((sweep) => now - Date.parse(sweep.deletedAt) >= olderThanMs)
    .map((sweep) => sweep.projectId);
}
