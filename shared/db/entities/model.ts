/** The version of every entity's key layout (ElectroDB writes it into keys and items). */
export const KEY_LAYOUT = '1';

/**
 * An entity's model: every entity lives in the one table under the one service name, which
 * prefixes its keys (so it never changes), at version 1 of its key layout.
 */
export const entityModel = (entity: string) => ({ entity, version: KEY_LAYOUT, service: 'pricing' });
