/**
 * The three circomlib hashes, for code that needs them all (tests, scripts). A function that
 * serves one hash imports its own module and bundles only that primitive.
 */
export * from './mimc.ts';
export * from './pedersen.ts';
export * from './poseidon.ts';
