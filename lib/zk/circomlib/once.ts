/**
 * A circomlibjs instance built once per process (each build compiles a wasm module: 0.4–1.9 s)
 * and shared by every invocation of a warm Lambda. The promise is cached, so concurrent first
 * calls share one build; a failed build is forgotten so that the next call retries.
 * circomlibjs builds its curves single-threaded: no worker threads to terminate. Each getter
 * imports its circomlibjs module on first call, not at import (Poseidon's constants alone are
 * 1.6 MB of a bundle that every function reaching lib/zk/merkle.ts parsed at a cold start).
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
