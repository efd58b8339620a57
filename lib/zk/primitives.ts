/**
 * Every circomlibjs primitive, for code that needs several (tests, scripts). A function that
 * serves one primitive imports its module from ./circomlib/ and bundles only that one.
 */
export { getBabyJub } from './circomlib/babyjub.ts';
export { getMimc7 } from './circomlib/mimc7.ts';
export { getPedersen } from './circomlib/pedersen.ts';
export { getPoseidon } from './circomlib/poseidon.ts';
