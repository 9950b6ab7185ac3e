import { limits } from '#contract/limits.ts';

/**
 * What a slug looks like. Here, not beside the project schemas, so the groups that only check
 * a path's slug (features, plans, customers) do not bundle the project's schemas (css-tree).
 */
export const slugPattern = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/** "Acme Pro — Ünïcode!" → "acme-pro-unicode". Empty when nothing usable is left. */
export function slugify(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, limits.slugMax)
    .replace(/-+$/, '');
}

/** The n-th candidate for a derived slug: base, base-2, base-3... always within the limit. */
export function slugCandidate(base: string, n: number): string {
  const root = base || 'project';
  if (n <= 1) return root;
  const suffix = `-${n}`;
  return `${root.slice(0, limits.slugMax - suffix.length).replace(/-+$/, '')}${suffix}`;
}
