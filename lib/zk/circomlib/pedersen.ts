// A deep import: circomlibjs's package entry re-exports every primitive (and ethers), which a
// bundle cannot shed; its `exports` map lists only that entry, hence the path (see circomlibjs.d.ts).
import { once } from './once.ts';

/** circomlibjs's Pedersen hash (its own Baby JubJub inside), built once per process. */
export const getPedersen = once(async () => (await import('../../../node_modules/circomlibjs/src/pedersen_hash.js')).default());
