// A deep import: circomlibjs's package entry re-exports every primitive (and ethers), which a
// bundle cannot shed; its `exports` map lists only that entry, hence the path (see circomlibjs.d.ts).
import { once } from './once.ts';

/** circomlibjs's Baby JubJub, built once per process. */
export const getBabyJub = once(async () => (await import('../../../node_modules/circomlibjs/src/babyjub.js')).default());
