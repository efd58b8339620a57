// The session AIR. Statement: "I know sk (4 felts) such that the first 4 lanes of
// Rescue-w8-r8(sk || KEY_HASH_IV) equal keyHash". Trace: 8 columns (the permutation state),
// row r = state before round r for r = 0..ROUNDS; all later rows are uniformly random and
// unconstrained, which is what makes the opened values independent of the key.
// Public inputs: keyHash (4 felts), session binding hash (4 felts), expiry (1 felt). keyHash is
// enforced by boundary constraints; binding and expiry bind through the Fiat–Shamir transcript
// (absorbed before any commitment), making the proof a signature of knowledge on them.
import { P, rootOfUnity, pow } from './field.ts';
import { type Fp2, eMul, eSub, eAdd, eBatchInv, eFrom, ePow, E_ZERO } from './ext.ts';
import { intt, evalBase, evalBaseAtExt } from './poly.ts';
import { WIDTH, RATE, ROUNDS, MDS, MDS_INV, RC1, RC2, KEY_HASH_IV, permutationStates, pow7 } from './rescue.ts';

export const AIR_VERSION = 'shroud-session-air/1.0';
export const STATEMENT_ID = 'shroud/session-key: rescue-w8-r8(sk||iv)[0..4] == key_hash; binds session_hash, expiry';

export interface Statement {
  keyHash: bigint[];
  binding: bigint[];
  expiry: bigint;
}
export const PUBLIC_INPUT_COUNT = 9;

export function statementFelts(s: Statement): bigint[] {
  return [...s.keyHash, ...s.binding, s.expiry];
}
export function statementFromFelts(f: readonly bigint[]): Statement {
  if (f.length !== PUBLIC_INPUT_COUNT) throw new Error('air: expected 9 public inputs');
  return { keyHash: f.slice(0, 4), binding: f.slice(4, 8), expiry: f[8] };
}

export interface BoundaryConstraint {
  col: number;
  row: number;
  value: bigint;
}
export function boundaryConstraints(keyHash: readonly bigint[]): BoundaryConstraint[] {
  const out: BoundaryConstraint[] = [];
  for (let i = 0; i < WIDTH - RATE; i++) out.push({ col: RATE + i, row: 0, value: KEY_HASH_IV[i] });
  for (let i = 0; i < RATE; i++) out.push({ col: i, row: ROUNDS, value: keyHash[i] });
  return out;
}
export const TRANSITION_COUNT = WIDTH;
export const BOUNDARY_COUNT = WIDTH;

/** Trace columns: ROUNDS + 1 permutation states, then random rows from `rand`. */
export function buildTrace(secretKey: readonly bigint[], n: number, rand: () => bigint): bigint[][] {
  const states = permutationStates([...secretKey, ...KEY_HASH_IV]);
  const cols = Array.from({ length: WIDTH }, () => new Array<bigint>(n));
  for (let r = 0; r < n; r++) {
    for (let c = 0; c < WIDTH; c++) cols[c][r] = r <= ROUNDS ? states[r][c] : rand();
  }
  return cols;
}

// Round constants as periodic columns of period ROUNDS: c(x) = c~(x^(n/ROUNDS)) with c~ of degree
// < ROUNDS interpolated over the ROUNDS-th roots of unity, so the verifier evaluates 16 tiny
// polynomials instead of interpolating over the whole trace.
const PERIODIC: bigint[][] = [...RC1[0].map((_, k) => RC1.map((r) => r[k])), ...RC2[0].map((_, k) => RC2.map((r) => r[k]))].map(
  (vals) => intt(vals),
);
/** [c1 lanes..., c2 lanes...] at a base point y = x^(n/ROUNDS). */
export function periodicAtBase(y: bigint): bigint[] {
  return PERIODIC.map((c) => evalBase(c, y));
}
export function periodicAtExt(y: Fp2): Fp2[] {
  return PERIODIC.map((c) => evalBaseAtExt(c, y));
}

/** Transition constraints on base values: (MDS^-1 (next - c2))^7 - (MDS cur^7 + c1), per lane. */
export function transitionBase(cur: readonly bigint[], next: readonly bigint[], per: readonly bigint[], out: bigint[]): void {
  const s7 = new Array<bigint>(WIDTH);
  const d = new Array<bigint>(WIDTH);
  for (let j = 0; j < WIDTH; j++) {
    s7[j] = pow7(cur[j]);
    const t = next[j] - per[WIDTH + j];
    d[j] = t < 0n ? t + P : t;
  }
  for (let k = 0; k < WIDTH; k++) {
    const m = MDS[k];
    const mi = MDS_INV[k];
    let u = per[k];
    let w = 0n;
    for (let j = 0; j < WIDTH; j++) {
      u += m[j] * s7[j];
      w += mi[j] * d[j];
    }
    out[k] = (pow7(w % P) - (u % P) + P) % P;
  }
}

function pow7Ext(x: Fp2): Fp2 {
  const x2 = eMul(x, x);
  const x3 = eMul(x2, x);
  return eMul(eMul(x3, x3), x);
}
/** The same constraints over the extension field (verifier, at the out-of-domain point). */
export function transitionExt(cur: readonly Fp2[], next: readonly Fp2[], per: readonly Fp2[]): Fp2[] {
  const s7 = cur.map(pow7Ext);
  const d = next.map((v, j) => eSub(v, per[WIDTH + j]));
  const out: Fp2[] = [];
  for (let k = 0; k < WIDTH; k++) {
    let u0 = per[k][0];
    let u1 = per[k][1];
    let w0 = 0n;
    let w1 = 0n;
    for (let j = 0; j < WIDTH; j++) {
      u0 += MDS[k][j] * s7[j][0];
      u1 += MDS[k][j] * s7[j][1];
      w0 += MDS_INV[k][j] * d[j][0];
      w1 += MDS_INV[k][j] * d[j][1];
    }
    out.push(eSub(pow7Ext([w0 % P, w1 % P]), [u0 % P, u1 % P]));
  }
  return out;
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
  z: Fp2,
  tz: readonly Fp2[],
  tgz: readonly Fp2[],
  alphas: readonly Fp2[],
  betas: readonly Fp2[],
  boundary: readonly BoundaryConstraint[],
): Fp2 {
  const pts = tracePoints(n);
  const per = periodicAtExt(ePow(z, BigInt(n / ROUNDS)));
  const t = transitionExt(tz, tgz, per);
  let num: Fp2 = E_ZERO;
  for (let k = 0; k < WIDTH; k++) num = eAdd(num, eMul(alphas[k], t[k]));
  let zer: Fp2 = eFrom(1n);
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

