import { Entity, type EntityConfiguration, type Schema } from 'electrodb';

/** The version of every entity's key layout (ElectroDB writes it into keys and items). */
export const KEY_LAYOUT = '1';

/**
 * An entity's model: every entity lives in the one table under the one service name, which
 * prefixes its keys (so it never changes), at version 1 of its key layout.
 */
export const entityModel = (entity: string) => ({ entity, version: KEY_LAYOUT, service: 'pricing' });

/**
 * An entity's schema, and how to build its ElectroDB Entity from it. Building one checks and
 * compiles the whole model, so shared/db/service.ts builds each entity the first time a
 * request uses it, not at a cold start for every entity the function carries.
 */
export const defineEntity =
  <A extends string, F extends string, C extends string, S extends Schema<A, F, C>>(schema: S) =>
  (config?: EntityConfiguration) =>
    new Entity<A, F, C, S>(schema, config);
