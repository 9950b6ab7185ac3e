/** ElectroDB wraps SDK errors; the SDK's own error name sits on `cause`. */
export function isConditionalCheckFailed(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const cause = (error as Error & { cause?: unknown }).cause;
  return (
    error.name === 'ConditionalCheckFailedException' ||
    (cause instanceof Error && cause.name === 'ConditionalCheckFailedException')
  );
}

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
