/**
 * circomlibjs instances, built once per process (each build compiles a wasm module: 0.4–1.9 s)
 * and shared by every invocation of a warm Lambda. Each getter caches its promise, so
 * concurrent first calls share one build; a failed build is forgotten so the next call retries.
 * circomlibjs builds its curves single-threaded: no worker threads to terminate.
 */
import {
  buildBabyjub,
  buildMimc7,
  buildPedersenHash,
  buildPoseidon,
  type BabyJub,
  type Mimc7,
  type PedersenHash,
  type Poseidon,
} from 'circomlibjs';

function once<T>(build: () => Promise<T>): () => Promise<T> {
  let cached: Promise<T> | undefined;
  return () => {
    cached ??= build().catch((e: unknown) => {
      cached = undefined;
      throw e;
    });
    return cached;
  };
}

export const getPoseidon: () => Promise<Poseidon> = once(buildPoseidon);
export const getMimc7: () => Promise<Mimc7> = once(buildMimc7);
export const getBabyJub: () => Promise<BabyJub> = once(buildBabyjub);
export const getPedersen: () => Promise<PedersenHash> = once(buildPedersenHash);
