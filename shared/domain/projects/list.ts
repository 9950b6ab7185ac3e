import { listOwnerProjectsAfter } from '#db/projects.ts';
import type { ProjectItem } from '#db/types.ts';
import { fillPage, type PageQuery } from '../pages.ts';
import type { ProjectSummaryView } from './schemas.ts';
import { toProjectSummaryView } from './view.ts';

/** One page of the owner's projects in id order; projects being deleted are not listed. */
export async function listProjectsPage(
  ownerId: string,
  query: PageQuery,
  publicBaseUrl: string,
): Promise<{ projects: ProjectSummaryView[]; nextCursor: string | null }> {
  const page = await fillPage<ProjectItem>(
    query,
    (item) => item.projectId,
    (afterId, count) => listOwnerProjectsAfter(ownerId, afterId, count),
    (item) => !item.deletingAt,
  );
  return { projects: page.items.map((item) => toProjectSummaryView(item, publicBaseUrl)), nextCursor: page.nextCursor };
}
