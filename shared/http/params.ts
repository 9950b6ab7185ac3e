import type { ProjectKey } from '#db/types.ts';
import { type DomainError, featureNotFound, planNotFound } from '#domain/errors.ts';
import { parsePathId } from '#domain/fields.ts';
import type { Principal } from '#domain/keys/keys.ts';

/** The caller's project named in the path: tenancy is the owner half of the key. */
export const projectKey = (principal: Principal, path: { slug: string }): ProjectKey => ({
  ownerId: principal.ownerId,
  slug: path.slug,
});

function pathId(value: string, notFound: (id: string) => DomainError): number {
  const id = parsePathId(value);
  if (id === undefined) throw notFound(value);
  return id;
}

/** A path id that is not a positive whole number names nothing: 404. */
export const planIdOf = (path: { planId: string }) => pathId(path.planId, planNotFound);
export const featureIdOf = (path: { featureId: string }) => pathId(path.featureId, featureNotFound);
