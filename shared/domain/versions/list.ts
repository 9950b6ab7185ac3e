import { listPlanVersions } from '#db/plan-versions.ts';
import type { ProjectKey } from '#db/types.ts';
import { findPlan, loadProject } from '../projects/load.ts';
import { type VersionContent, versionFields, versionOf } from './content.ts';
import { planContent } from './current.ts';
import { holdersOf } from './holders.ts';
import type { VersionListView, VersionView } from './schemas.ts';

function toVersionView(version: number, createdAt: string, content: VersionContent, customers: number): VersionView {
  return { ...versionFields(version, createdAt, content), customers };
}

/**
 * `GET …/plans/{planId}/versions`: the current version and every stored (superseded) one,
 * newest first, each with the subscriptions that hold it. The project, the stored versions
 * and the project's customers are read; no write.
 */
export async function listVersions(key: ProjectKey, planId: number): Promise<VersionListView> {
  const partition = await loadProject(key);
  const plan = findPlan(partition, planId);
  const { projectId } = partition.project;
  const current = versionOf(plan);
  const [stored, holders] = await Promise.all([
    listPlanVersions(projectId, planId),
    holdersOf(projectId, planId, current),
  ]);
  const counts = new Map<number, number>();
  for (const holder of holders) counts.set(holder.version, (counts.get(holder.version) ?? 0) + 1);
  const versions = [
    toVersionView(current, plan.pricedAt ?? plan.createdAt, planContent(partition, plan), counts.get(current) ?? 0),
    ...stored
      .filter((item) => item.version < current)
      .sort((a, b) => b.version - a.version)
      .map((item) =>
        toVersionView(item.version, item.createdAt, item.content as VersionContent, counts.get(item.version) ?? 0),
      ),
  ];
  return { versions };
}
