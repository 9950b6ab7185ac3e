import type { ProjectKey, ProjectPartition } from '#db/types.ts';
import { loadProject } from '../projects/load.ts';

/**
 * The customer reads' per-container cache of project definitions, by owner and slug (so
 * tenancy is the key's, as everywhere): a warm entitlement read is then one DynamoDB request
 * (the customer's GetItem) instead of two. An entry lives at most `ttlMs` (PROJECT_CACHE_TTL_SECONDS,
 * 10 s at most): an owner's plan edit reaches entitlements within that. Misses (unknown
 * projects) are not cached, so a project just created is found at once. Writes never use it.
 */
const MAX_ENTRIES = 500;
const entries = new Map<string, { partition: ProjectPartition; expires: number }>();

const cacheId = (key: ProjectKey) => `${key.ownerId}\u0000${key.slug}`;

export async function loadProjectCached(key: ProjectKey, ttlMs: number): Promise<ProjectPartition> {
  const id = cacheId(key);
  const now = Date.now();
  const hit = entries.get(id);
  if (hit && hit.expires > now) return hit.partition;
  const partition = await loadProject(key);
  if (ttlMs > 0) {
    entries.delete(id);
    // Map keeps insertion order: the first entry is the oldest.
    if (entries.size >= MAX_ENTRIES) entries.delete(entries.keys().next().value as string);
    entries.set(id, { partition, expires: now + ttlMs });
  }
  return partition;
}

/** Drops the project's cached definition: the next loadProjectCached reads it from the table. */
export function forgetProjectCached(key: ProjectKey): void {
  entries.delete(cacheId(key));
}
