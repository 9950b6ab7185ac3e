/**
 * `load` run at the first call rather than at import, its promise kept for every later call;
 * a load that fails is tried again at the next call.
 */
export function atFirstUse<T>(load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | undefined;
  return () => {
    loading ??= load().catch((error: unknown) => {
      loading = undefined;
      throw error;
    });
    return loading;
  };
}
