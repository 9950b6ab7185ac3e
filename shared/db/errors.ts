/** ElectroDB wraps SDK errors; the SDK's own error name sits on `cause`. */
export function isConditionalCheckFailed(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const cause = (error as Error & { cause?: unknown }).cause;
  return (
    error.name === 'ConditionalCheckFailedException' ||
    (cause instanceof Error && cause.name === 'ConditionalCheckFailedException')
  );
}
