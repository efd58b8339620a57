// The session AIR. Statement: "I know sk (4 felts) such that RPO's hash_elements(sk) = keyHash",
// i.e. one Rescue-Prime Optimized permutation of [4, 0, 0, 0 | sk | 0, 0, 0, 0] whose lanes 4..7
// equal keyHash. Trace: 12 columns (the permutation state); row r is the state before round r for
// r = 0..ROUNDS; all later rows are uniformly random and unconstrained, which is what makes the
// opened values independent of the key.
// Public inputs: keyHash (4 felts), session binding hash (4 felts), expiry (1 felt), custody (1 felt:
// who holds the key and proved — the client, or the server for clients that send no proof).
// keyHash and the fixed input lanes are boundary constraints; binding, expiry and custody bind
// through the Fiat–Shamir transcript (absorbed before any commitment), making the proof a signature
// of knowledge on them.
import { P as MODULUS, rootOfUnity, pow } from './field.ts';
import { type Fp3, eMul, eSub, eAdd, eBatchInv, eFrom, ePow, E_ZERO } from './ext.ts';
import { intt, evalBase, evalBaseAtExt } from './poly.ts';
import {
  WIDTH,
  ROUNDS,
  MDS_FIRST_ROW,
  ARK1,
  ARK2,
  RATE_START,
  DIGEST_START,
  DIGEST_SIZE,
  KEY_FELTS,
  initialState,
  keyHashInput,
  permutationStates,
} from './rpo.ts';

// A module-local copy: hot loops read it as a plain constant, not through an import binding.
const P = MODULUS;

// 2.1: a 256-row trace, blowup 8 and 60 queries (105 proven bits); 2.0 had 128 rows, blowup 16 and 28 queries (71).
export const AIR_VERSION = 'shroud-session-air/2.1';
export const STATEMENT_ID = 'shroud/session-key: rpo256.hash_elements(sk) == key_hash; binds session_hash, expiry, custody';

/** Who made the key and the proof, as a public input (never 0, so a default cannot pass for either). */
export const CUSTODY_CLIENT = 1n;
export const CUSTODY_SERVER = 2n;

export interface Statement {
  keyHash: bigint[];
  binding: bigint[];
  expiry: bigint;
  custody: bigint;
}
export const PUBLIC_INPUT_COUNT = 10;

export function statementFelts(s: Statement): bigint[] {
  return [...s.keyHash, ...s.binding, s.expiry, s.custody];
}
export function statementFromFelts(f: readonly bigint[]): Statement {
  if (f.length !== PUBLIC_INPUT_COUNT) throw new Error('air: expected 10 public inputs');
  return { keyHash: f.slice(0, 4), binding: f.slice(4, 8), expiry: f[8], custody: f[9] };
}

export interface BoundaryConstraint {
  col: number;
  row: number;
  value: bigint;
}
/** Row 0: the capacity and padding lanes of hash_elements(4 felts); row ROUNDS: the digest lanes. */
export function boundaryConstraints(keyHash: readonly bigint[]): BoundaryConstraint[] {
  const init = initialState(KEY_FELTS);
  const out: BoundaryConstraint[] = [];
  for (let c = 0; c < WIDTH; c++) {
    if (c >= RATE_START && c < RATE_START + KEY_FELTS) continue; // the secret key lanes
    out.push({ col: c, row: 0, value: init[c] });
  }
  for (let i = 0; i < DIGEST_SIZE; i++) out.push({ col: DIGEST_START + i, row: ROUNDS, value: keyHash[i] });
  return out;
}
export const TRANSITION_COUNT = WIDTH;
export const BOUNDARY_COUNT = WIDTH;
/** Rows 0..ROUNDS-1 carry a transition; the periodic columns repeat every PERIOD rows. */
export const PERIOD = 8;

/** Trace columns: ROUNDS + 1 permutation states, then random rows from `rand`. */
export function buildTrace(secretKey: readonly bigint[], n: number, rand: () => bigint): bigint[][] {
  const states = permutationStates(keyHashInput(secretKey));
  const cols = Array.from({ length: WIDTH }, () => new Array<bigint>(n));
  for (let r = 0; r < n; r++) {
    for (let c = 0; c < WIDTH; c++) cols[c][r] = r <= ROUNDS ? states[r][c] : rand();
  }
  return cols;
}

// Round constants as periodic columns of period 8 (7 rounds and an unused slot 7, where no
// transition is enforced): c(x) = c~(x^(n/8)) with c~ of degree < 8 interpolated over the 8th roots
// of unity, so the verifier evaluates 24 tiny polynomials instead of interpolating over the trace.
const column = (ark: bigint[][], lane: number) => Array.from({ length: PERIOD }, (_, r) => (r < ROUNDS ? ark[r][lane] : 0n));
const PERIODIC: bigint[][] = [...Array.from({ length: WIDTH }, (_, k) => column(ARK1, k)), ...Array.from({ length: WIDTH }, (_, k) => column(ARK2, k))].map(
  (vals) => intt(vals),
);
/** [ark1 lanes..., ark2 lanes...] at a base point y = x^(n/PERIOD). */
export function periodicAtBase(y: bigint): bigint[] {
  return PERIODIC.map((c) => evalBase(c, y));
}
export function periodicAtExt(y: Fp3): Fp3[] {
  return PERIODIC.map((c) => evalBaseAtExt(c, y));
}

/**
 * Transition constraints on base values, per lane k:
 * next_k^7 - (MDS · (MDS · cur + ark1)^7 + ark2)_k — one RPO round with its inverse S-box moved to
 * the other side, so every constraint has degree 7.
 */
const W = WIDTH;
/** MDS row-major as one flat local array (MDS[i][j] = row[(j - i) mod 12]). */
const MDS_FLAT: bigint[] = Array.from({ length: W * W }, (_, x) => MDS_FIRST_ROW[((x % W) - Math.floor(x / W) + W) % W]);
const u = new Array<bigint>(W);
export function transitionBase(cur: readonly bigint[], next: readonly bigint[], per: readonly bigint[], out: bigint[]): void {
  const m = MDS_FLAT;
  for (let j = 0; j < W; j++) {
    let acc = per[j];
    const o = j * W;
    for (let i = 0; i < W; i++) acc += m[o + i] * cur[i];
    const x = acc % P;
    const x2 = (x * x) % P;
    const x3 = (x2 * x) % P;
    const x6 = (x3 * x3) % P;
    u[j] = (x6 * x) % P;
  }
  for (let k = 0; k < W; k++) {
    let acc = per[W + k];
    const o = k * W;
    for (let j = 0; j < W; j++) acc += m[o + j] * u[j];
    const x = next[k];
    const x2 = (x * x) % P;
    const x3 = (x2 * x) % P;
    const x6 = (x3 * x3) % P;
    out[k] = (((x6 * x) % P) - (acc % P) + P) % P;
  }
}

function pow7Ext(x: Fp3): Fp3 {
  const x2 = eMul(x, x);
  const x3 = eMul(x2, x);
  return eMul(eMul(x3, x3), x);
}
/** MDS row k times an extension vector (small integer entries: one reduction per coordinate). */
function mdsRowExt(k: number, v: readonly Fp3[], add: Fp3): Fp3 {
  let a0 = add[0];
  let a1 = add[1];
  let a2 = add[2];
  for (let j = 0; j < WIDTH; j++) {
    const m = MDS_FIRST_ROW[(j - k + WIDTH) % WIDTH];
    a0 += m * v[j][0];
    a1 += m * v[j][1];
    a2 += m * v[j][2];
  }
  return [a0 % P, a1 % P, a2 % P];
}
/** The same constraints over the extension field (verifier, at the out-of-domain point). */
export function transitionExt(cur: readonly Fp3[], next: readonly Fp3[], per: readonly Fp3[]): Fp3[] {
  const u = Array.from({ length: WIDTH }, (_, j) => pow7Ext(mdsRowExt(j, cur, per[j])));
  return Array.from({ length: WIDTH }, (_, k) => eSub(pow7Ext(next[k]), mdsRowExt(k, u, per[WIDTH + k])));
}

const tracePointCache = new Map<number, bigint[]>();
/** Trace-domain points g^0 .. g^ROUNDS (g of order n). */
export function tracePoints(n: number): bigint[] {
  let pts = tracePointCache.get(n);
  if (!pts) {
    const g = rootOfUnity(n);
    pts = Array.from({ length: ROUNDS + 1 }, (_, i) => pow(g, BigInt(i)));
    tracePointCache.set(n, pts);
  }
  return pts;
}

/**
 * Composition value at the out-of-domain point z from the trace frame (t(z), t(g z)):
 * H(z) = sum_k alpha_k T_k(z) / prod_{r<ROUNDS}(z - g^r) + sum_b beta_b (t_col(z) - v_b)/(z - g^row).
 * Shared by verifier and prover so both compute exactly the same relation.
 */
export function compositionAtZ(
  n: number,
  z: Fp3,
  tz: readonly Fp3[],
  tgz: readonly Fp3[],
  alphas: readonly Fp3[],
  betas: readonly Fp3[],
  boundary: readonly BoundaryConstraint[],
): Fp3 {
  const pts = tracePoints(n);
  const per = periodicAtExt(ePow(z, BigInt(n / PERIOD)));
  const t = transitionExt(tz, tgz, per);
  let num: Fp3 = E_ZERO;
  for (let k = 0; k < WIDTH; k++) num = eAdd(num, eMul(alphas[k], t[k]));
  let zer: Fp3 = eFrom(1n);
  for (let r = 0; r < ROUNDS; r++) zer = eMul(zer, eSub(z, eFrom(pts[r])));
  // One batched inversion for the zerofier and every boundary denominator.
  const invs = eBatchInv([zer, ...boundary.map((bc) => eSub(z, eFrom(pts[bc.row])))]);
  let h = eMul(num, invs[0]);
  for (let b = 0; b < boundary.length; b++) {
    const bc = boundary[b];
    const q = eMul(eSub(tz[bc.col], eFrom(bc.value)), invs[b + 1]);
    h = eAdd(h, eMul(betas[b], q));
  }
  return h;
}
