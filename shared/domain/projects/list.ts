import { listOwnerProjectsAfter } from '#db/projects.ts';
import type { ProjectItem } from '#db/types.ts';
import { idKey, type PageQuery, pagedList } from '../pages.ts';
import { toProjectSummaryView } from './view.ts';

const projectPages = pagedList(idKey, (item: ProjectItem) => item.projectId);

/** One page of the owner's projects in id order. */
export async function listProjectsPage(ownerId: string, query: PageQuery, publicBaseUrl: string) {
  const page = await projectPages.fill(projectPages.start(query), (after, count) =>
    listOwnerProjectsAfter(ownerId, after ?? 0, count),
  );
  return { projects: page.items.map((item) => toProjectSummaryView(item, publicBaseUrl)), nextCursor: page.nextCursor };
}
