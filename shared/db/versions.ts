type Operations = { eq: (attribute: never, value: number) => string; notExists: (attribute: never) => string };

/**
 * The condition that an item's `version` is still the one read: equal to it, or still absent
 * when it was absent (0, an item from before versions).
 */
export const versionIs = (version: number | undefined, attribute: unknown, { eq, notExists }: Operations) =>
  version ? eq(attribute as never, version) : notExists(attribute as never);
