import { getPlanVersion } from '#db/plan-versions.ts';
import type { VersionContent } from './content.ts';

/**
 * Stored versions never change (a version is frozen once, when it is superseded), so the
 * customer reads keep them for the life of the container, without expiry: a warm read of a
 * grandfathered customer costs no request more than one of a current customer. Bounded, the
 * oldest entry first out.
 */
const MAX_ENTRIES = 2_000;
const frozen = new Map<string, { content: VersionContent; createdAt: string }>();

/** A stored version's content and when it became current, or undefined when it is not stored. */
export async function storedVersion(
  projectId: number,
  planId: number,
  version: number,
): Promise<{ content: VersionContent; createdAt: string } | undefined> {
  const id = `${projectId}:${planId}:${version}`;
  const hit = frozen.get(id);
  if (hit) return hit;
  const item = await getPlanVersion(projectId, planId, version);
  if (!item) return undefined;
  const entry = { content: item.content as VersionContent, createdAt: item.createdAt };
  if (frozen.size >= MAX_ENTRIES) frozen.delete(frozen.keys().next().value as string);
  frozen.set(id, entry);
  return entry;
}
