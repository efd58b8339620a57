// Transcript steps and the DEEP formula shared by prover and verifier, so the two sides cannot
// drift apart. Fiat–Shamir order: statement id + AIR version + parameters, public inputs,
// trace root -> composition coefficients, composition root -> z, OOD frame -> DEEP coefficients,
// FRI (beta_0, root_1, beta_1, ..., remainder), grinding nonce -> query positions.
import { type Fp3, eMul, eAdd, EXT_DEGREE } from './ext.ts';
import { P as MODULUS } from './field.ts';
import { Transcript } from './transcript.ts';
import { AIR_VERSION, STATEMENT_ID, TRANSITION_COUNT, BOUNDARY_COUNT } from './air.ts';
import { ROUNDS, WIDTH } from './rpo.ts';
import type { ProofShape } from './params.ts';
import type { FriConfig } from './fri.ts';

const P = MODULUS;

export function friConfig(shape: ProofShape): FriConfig {
  return {
    domainSize: shape.ldeSize,
    offset: shape.ldeOffset,
    degreeBound: shape.n,
    remainderDegree: shape.params.friRemainderDegree,
  };
}

export function newTranscript(shape: ProofShape, publicFelts: readonly bigint[]): Transcript {
  const t = new Transcript(`${STATEMENT_ID}|${AIR_VERSION}`);
  const p = shape.params;
  t.absorbFelts([p.traceLength, p.blowup, p.queries, p.grindingBits, p.friRemainderDegree, ROUNDS, WIDTH, EXT_DEGREE].map(BigInt));
  t.absorbFelts(publicFelts);
  return t;
}

export function drawCompositionCoeffs(t: Transcript): { alphas: Fp3[]; betas: Fp3[] } {
  const alphas = Array.from({ length: TRANSITION_COUNT }, () => t.drawExt());
  const betas = Array.from({ length: BOUNDARY_COUNT }, () => t.drawExt());
  return { alphas, betas };
}

/** Out-of-domain point: redrawn until it is outside F_p, hence outside every evaluation domain. */
export function drawOodPoint(t: Transcript): Fp3 {
  for (;;) {
    const z = t.drawExt();
    if (z[1] !== 0n || z[2] !== 0n) return z;
  }
}

export function absorbOod(t: Transcript, tz: readonly Fp3[], tgz: readonly Fp3[], hz: readonly Fp3[]): void {
  t.absorbExts([...tz, ...tgz, ...hz]);
}

export interface DeepCoeffs {
  gammaZ: Fp3[];
  gammaGz: Fp3[];
  delta: Fp3[];
  eps: Fp3;
}
export function drawDeepCoeffs(t: Transcript, width: number, segments: number): DeepCoeffs {
  const gammaZ = Array.from({ length: width }, () => t.drawExt());
  const gammaGz = Array.from({ length: width }, () => t.drawExt());
  const delta = Array.from({ length: segments }, () => t.drawExt());
  return { gammaZ, gammaGz, delta, eps: t.drawExt() };
}

export function nonceBytes(nonce: bigint): Uint8Array {
  const b = new Uint8Array(8);
  new DataView(b.buffer).setBigUint64(0, nonce, true);
  return b;
}
export function powOk(t: Transcript, nonce: bigint, bits: number): boolean {
  return t.powBits(nonce) >= bits;
}

/** Grinding then queries: the nonce is absorbed before positions are drawn. Positions ascend. */
export function queryPositions(t: Transcript, shape: ProofShape, nonce: bigint): number[] {
  t.absorb(nonceBytes(nonce));
  return t.drawDistinctIndices(shape.params.queries, shape.ldeSize / 2).sort((a, b) => a - b);
}

/** The x-independent parts of the DEEP numerators: sum gZ_c t_c(z) + sum d_j H'_j(z), and sum gGz_c t_c(g z). */
export function deepConstants(tz: readonly Fp3[], tgz: readonly Fp3[], hz: readonly Fp3[], c: DeepCoeffs): { az: Fp3; bz: Fp3 } {
  let az: Fp3 = [0n, 0n, 0n];
  let bz: Fp3 = [0n, 0n, 0n];
  for (let i = 0; i < tz.length; i++) {
    az = eAdd(az, eMul(c.gammaZ[i], tz[i]));
    bz = eAdd(bz, eMul(c.gammaGz[i], tgz[i]));
  }
  for (let j = 0; j < hz.length; j++) az = eAdd(az, eMul(c.delta[j], hz[j]));
  return { az, bz };
}

/**
 * DEEP composition at a base point x:
 * F(x) = [sum_c gZ_c (t_c(x) - t_c(z)) + sum_j d_j (H'_j(x) - H'_j(z))] / (x - z)
 *      + [sum_c gGz_c (t_c(x) - t_c(g z))] / (x - g z) + eps R(x),
 * with the constant parts (deepConstants) subtracted once. compRow holds the 3 coordinates of each
 * segment, then those of the randomizer R. The caller passes 1/(x - z) and 1/(x - g z) so it can
 * batch the inversions. Products are summed unreduced and reduced once per coordinate.
 */
export function deepAt(
  traceRow: readonly bigint[],
  traceOffset: number,
  compRow: readonly bigint[],
  compOffset: number,
  segments: number,
  invXz: Fp3,
  invXgz: Fp3,
  k: { az: Fp3; bz: Fp3 },
  c: DeepCoeffs,
): Fp3 {
  let a0 = 0n,
    a1 = 0n,
    a2 = 0n,
    b0 = 0n,
    b1 = 0n,
    b2 = 0n;
  for (let i = 0; i < c.gammaZ.length; i++) {
    const v = traceRow[traceOffset + i];
    const g = c.gammaZ[i];
    const h = c.gammaGz[i];
    a0 += g[0] * v;
    a1 += g[1] * v;
    a2 += g[2] * v;
    b0 += h[0] * v;
    b1 += h[1] * v;
    b2 += h[2] * v;
  }
  // sum_j d_j · H'_j(x) in F_{p^3}: coefficients of degree 0..4, folded with x^3 = x + 1, x^4 = x^2 + x.
  let c3 = 0n,
    c4 = 0n;
  const D = EXT_DEGREE;
  for (let j = 0; j < segments; j++) {
    const [d0, d1, d2] = c.delta[j];
    const o = compOffset + D * j;
    const h0 = compRow[o],
      h1 = compRow[o + 1],
      h2 = compRow[o + 2];
    a0 += d0 * h0;
    a1 += d0 * h1 + d1 * h0;
    a2 += d0 * h2 + d1 * h1 + d2 * h0;
    c3 += d1 * h2 + d2 * h1;
    c4 += d2 * h2;
  }
  const A: Fp3 = [(((a0 + c3) % P) - k.az[0] + P) % P, (((a1 + c3 + c4) % P) - k.az[1] + P) % P, (((a2 + c4) % P) - k.az[2] + P) % P];
  const B: Fp3 = [((b0 % P) - k.bz[0] + P) % P, ((b1 % P) - k.bz[1] + P) % P, ((b2 % P) - k.bz[2] + P) % P];
  const o = compOffset + D * segments;
  const r: Fp3 = [compRow[o], compRow[o + 1], compRow[o + 2]];
  return eAdd(eAdd(eMul(A, invXz), eMul(B, invXgz)), eMul(c.eps, r));
}
