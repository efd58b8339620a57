import { once } from './once.ts';

/**
 * circomlibjs's wasm Poseidon (circomlib's parameters), built once per process from the
 * precomputed module (lib/zk/poseidon-curve.ts), imported on first use: the module is 0.9 MB.
 */
export const getPoseidon = once(async () => (await import('../poseidon-curve.ts')).buildCachedPoseidon());
