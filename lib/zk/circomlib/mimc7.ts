// A deep import: circomlibjs's package entry re-exports every primitive, which a bundle cannot
// shed; its `exports` map lists only that entry, hence the path (see circomlibjs.d.ts).
import { once } from './once.ts';

/** circomlibjs's MiMC7 (91 rounds, seed "mimc"), built once per process. */
export const getMimc7 = once(async () => (await import('../../../node_modules/circomlibjs/src/mimc7.js')).default());
