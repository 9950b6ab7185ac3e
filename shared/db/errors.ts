/** Whether an SDK error has one of `names`: ElectroDB wraps them, with the SDK's own on `cause`. */
export function isNamed(error: unknown, names: ReadonlySet<string>): boolean {
  if (!(error instanceof Error)) return false;
  const cause = (error as Error & { cause?: unknown }).cause;
  return names.has(error.name) || (cause instanceof Error && names.has(cause.name));
}

const CONDITIONAL_CHECK_FAILED = new Set(['ConditionalCheckFailedException']);
export const isConditionalCheckFailed = (error: unknown) => isNamed(error, CONDITIONAL_CHECK_FAILED);

/**
 * Awaits one conditional write. A failed condition is an expected outcome, not an error,
 * so it comes back as `tag` for the domain to interpret; anything else is thrown as is.
 */
export async function ifConditionFails<T, const Tag extends string>(write: Promise<T>, tag: Tag): Promise<T | Tag> {
  try {
    return await write;
  } catch (error) {
    if (isConditionalCheckFailed(error)) return tag;
    throw error;
  }
}
