/**
 * An entity's model: every entity lives in the one table under the one service name, which
 * prefixes its keys (so it never changes), at version 1 of its key layout.
 */
export const entityModel = (entity: string) => ({ entity, version: '1', service: 'pricing' });
