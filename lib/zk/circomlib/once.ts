/**
 * A circomlibjs instance built once per process (each build compiles a wasm module: 0.4–1.9 s)
 * and shared by every invocation of a warm Lambda. The promise is cached, so concurrent first
 * calls share one build; a failed build is forgotten so that the next call retries.
 * circomlibjs builds its curves single-threaded: no worker threads to terminate.
 */
export function once<T>(build: () => Promise<T>): () => Promise<T> {
  let cached: Promise<T> | undefined;
  return () => {
    cached ??= build().catch((e: unknown) => {
      cached = undefined;
      throw e;
    });
    return cached;
  };
}
