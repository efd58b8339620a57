// Transcript steps and the DEEP formula shared by prover and verifier, so the two sides cannot
// drift apart. Fiat–Shamir order: statement id + AIR version + parameters, public inputs,
// trace root -> composition coefficients, composition root -> z, OOD frame -> DEEP coefficients,
// FRI (beta_0, root_1, beta_1, ..., remainder), grinding nonce -> query positions.
import { type Fp3, eMul, eAdd, eSub, eFrom, EXT_DEGREE } from './ext.ts';
import { Transcript } from './transcript.ts';
import { AIR_VERSION, STATEMENT_ID, TRANSITION_COUNT, BOUNDARY_COUNT } from './air.ts';
import { ROUNDS, WIDTH } from './rpo.ts';
import type { ProofShape } from './params.ts';
import type { FriConfig } from './fri.ts';

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

/**
 * DEEP composition at a base point x:
 * F(x) = [sum_c gZ_c (t_c(x) - t_c(z)) + sum_j d_j (H'_j(x) - H'_j(z))] / (x - z)
 *      + [sum_c gGz_c (t_c(x) - t_c(g z))] / (x - g z) + eps R(x).
 * compRow holds the 3 coordinates of each segment, then those of the randomizer R. The caller passes
 * 1/(x - z) and 1/(x - g z) so it can batch the inversions.
 */
export function deepAt(
  traceRow: readonly bigint[],
  compRow: readonly bigint[],
  invXz: Fp3,
  invXgz: Fp3,
  tz: readonly Fp3[],
  tgz: readonly Fp3[],
  hz: readonly Fp3[],
  c: DeepCoeffs,
): Fp3 {
  let a: Fp3 = [0n, 0n, 0n];
  let b: Fp3 = [0n, 0n, 0n];
  for (let i = 0; i < traceRow.length; i++) {
    const tx = eFrom(traceRow[i]);
    a = eAdd(a, eMul(c.gammaZ[i], eSub(tx, tz[i])));
    b = eAdd(b, eMul(c.gammaGz[i], eSub(tx, tgz[i])));
  }
  const D = EXT_DEGREE;
  for (let j = 0; j < hz.length; j++) {
    a = eAdd(a, eMul(c.delta[j], eSub([compRow[D * j], compRow[D * j + 1], compRow[D * j + 2]], hz[j])));
  }
  const k = D * hz.length;
  const r: Fp3 = [compRow[k], compRow[k + 1], compRow[k + 2]];
  return eAdd(eAdd(eMul(a, invXz), eMul(b, invXgz)), eMul(c.eps, r));
}
