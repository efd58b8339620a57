// A deep import: circomlibjs's package entry re-exports every primitive (and ethers), which a
// bundle cannot shed; its `exports` map lists only that entry, hence the path (see circomlibjs.d.ts).
import { once } from './once.ts';

/** circomlibjs's wasm Poseidon (circomlib's parameters), built once per process. */
export const getPoseidon = once(async () => (await import('../../../node_modules/circomlibjs/src/poseidon_wasm.js')).buildPoseidon());
