import { getPlanVersion } from '#db/plan-versions.ts';
import type { VersionContent } from './content.ts';

/**
 * Stored versions never change (a version is frozen once, when it is superseded), so the
 * customer reads keep them for the life of the container, without expiry: a warm read of a
 * grandfathered customer costs no request more than one of a current customer. The read in
 * flight is kept, not only its result, so callers at once on a cold container (a batch's
 * customers holding one version) share one GetItem. A version not stored (yet) and a failed
 * read are dropped once settled: the next caller reads again. Bounded, the oldest entry first out.
 */
type StoredVersion = { content: VersionContent; createdAt: string };
const MAX_ENTRIES = 2_000;
const frozen = new Map<string, Promise<StoredVersion | undefined>>();

/** A stored version's content and when it became current, or undefined when it is not stored. */
export function storedVersion(projectId: number, planId: number, version: number): Promise<StoredVersion | undefined> {
  const id = `${projectId}:${planId}:${version}`;
  const hit = frozen.get(id);
  if (hit) return hit;
  const read = getPlanVersion(projectId, planId, version).then((item) =>
    item ? { content: item.content as VersionContent, createdAt: item.createdAt } : undefined,
  );
  if (frozen.size >= MAX_ENTRIES) frozen.delete(frozen.keys().next().value as string);
  frozen.set(id, read);
  const forget = () => {
    if (frozen.get(id) === read) frozen.delete(id);
  };
  read.then((entry) => {
    if (!entry) forget();
  }, forget);
  return read;
}
