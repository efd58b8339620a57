// Rescue-Prime-style permutation over Goldilocks: width 8 (rate 4, capacity 4), S-box x^7 and its
// inverse x^(1/7), a Cauchy MDS matrix, 8 rounds. Round count from the Rescue-Prime rule
// N = ceil(1.5 * max(5, l0)) with l0 = 4 the Gröbner-basis bound for m = 8, rate 4, alpha = 7 at
// 128 bits. Constants are our own (SHA-256 derived), so this is not interoperable with any
// published Rescue instance; it is the algebraic hash the session AIR proves.
import { createHash } from 'node:crypto';
import { P, pow, inv } from './field.ts';

export const WIDTH = 8;
export const RATE = 4;
export const CAPACITY = 4;
export const ROUNDS = 8;
export const ALPHA = 7n;
/** 7^-1 mod (p - 1): 7 does not divide p - 1, so x -> x^7 is a permutation of F_p. */
export const ALPHA_INV = modInverse(7n, P - 1n);

function modInverse(a: bigint, m: bigint): bigint {
  let [oldR, r] = [a, m];
  let [oldS, s] = [1n, 0n];
  while (r !== 0n) {
    const q = oldR / r;
    [oldR, r] = [r, oldR - q * r];
    [oldS, s] = [s, oldS - q * s];
  }
  if (oldR !== 1n) throw new Error('rescue: alpha not invertible');
  return ((oldS % m) + m) % m;
}

/** Deterministic nothing-up-my-sleeve felts: SHA-256(label || counter), 64-bit chunks below p. */
function deriveFelts(label: string, count: number): bigint[] {
  const out: bigint[] = [];
  for (let ctr = 0; out.length < count; ctr++) {
    const h = createHash('sha256').update(label).update(Buffer.from([ctr & 0xff, (ctr >> 8) & 0xff])).digest();
    for (let i = 0; i < 4 && out.length < count; i++) {
      const v = h.readBigUInt64LE(i * 8);
      if (v < P) out.push(v);
    }
  }
  return out;
}

// Cauchy matrix M[i][j] = 1/(x_i + y_j) with x_i = i, y_j = WIDTH + j: every square submatrix of a
// Cauchy matrix is nonsingular, so M is MDS by construction (no search needed).
export const MDS: bigint[][] = Array.from({ length: WIDTH }, (_, i) =>
  Array.from({ length: WIDTH }, (_, j) => inv(BigInt(i + WIDTH + j))),
);
export const MDS_INV: bigint[][] = invertMatrix(MDS);

function invertMatrix(m: bigint[][]): bigint[][] {
  const n = m.length;
  const a = m.map((row, i) => [...row, ...Array.from({ length: n }, (_, j) => (i === j ? 1n : 0n))]);
  for (let c = 0; c < n; c++) {
    const piv = a.findIndex((row, r) => r >= c && row[c] !== 0n);
    if (piv < 0) throw new Error('rescue: singular MDS');
    [a[c], a[piv]] = [a[piv], a[c]];
    const f = inv(a[c][c]);
    for (let j = 0; j < 2 * n; j++) a[c][j] = (a[c][j] * f) % P;
    for (let r = 0; r < n; r++) {
      if (r === c || a[r][c] === 0n) continue;
      const g = a[r][c];
      for (let j = 0; j < 2 * n; j++) a[r][j] = (a[r][j] - ((g * a[c][j]) % P) + P) % P;
    }
  }
  return a.map((row) => row.slice(n));
}

const rc = deriveFelts('shroud/rescue-w8/round-constants/v1', 2 * ROUNDS * WIDTH);
/** Constants added after the forward (x^7) half-round, per round. */
export const RC1: bigint[][] = Array.from({ length: ROUNDS }, (_, r) => rc.slice(2 * r * WIDTH, (2 * r + 1) * WIDTH));
/** Constants added after the inverse (x^(1/7)) half-round, per round. */
export const RC2: bigint[][] = Array.from({ length: ROUNDS }, (_, r) => rc.slice((2 * r + 1) * WIDTH, (2 * r + 2) * WIDTH));
/** Capacity initialisation: input length 4 and a domain tag, so this hash is separated from other uses. */
export const KEY_HASH_IV: bigint[] = [4n, ...deriveFelts('shroud/rescue-w8/key-hash-iv/v1', CAPACITY - 1)];

export function pow7(x: bigint): bigint {
  const x2 = (x * x) % P;
  const x3 = (x2 * x) % P;
  const x6 = (x3 * x3) % P;
  return (x6 * x) % P;
}

export function mdsMul(m: bigint[][], s: readonly bigint[]): bigint[] {
  const out = new Array<bigint>(WIDTH);
  for (let i = 0; i < WIDTH; i++) {
    let acc = 0n;
    const row = m[i];
    for (let j = 0; j < WIDTH; j++) acc += row[j] * s[j];
    out[i] = acc % P;
  }
  return out;
}

/** One full round: S-box, MDS, constants, inverse S-box, MDS, constants. */
export function round(state: readonly bigint[], r: number): bigint[] {
  const u = mdsMul(MDS, state.map(pow7)).map((v, i) => (v + RC1[r][i]) % P);
  const w = u.map((v) => pow(v, ALPHA_INV));
  return mdsMul(MDS, w).map((v, i) => (v + RC2[r][i]) % P);
}

/** All ROUNDS + 1 states of the permutation (the execution trace of the statement). */
export function permutationStates(input: readonly bigint[]): bigint[][] {
  if (input.length !== WIDTH) throw new Error('rescue: bad state width');
  const states = [input.slice()];
  for (let r = 0; r < ROUNDS; r++) states.push(round(states[r], r));
  return states;
}

/** Key hash: absorb the 4 key felts into the rate, permute, squeeze the 4 rate felts. */
export function hashKey(secretKey: readonly bigint[]): bigint[] {
  if (secretKey.length !== RATE) throw new Error('rescue: key must be 4 felts');
  return permutationStates([...secretKey, ...KEY_HASH_IV])[ROUNDS].slice(0, RATE);
}
