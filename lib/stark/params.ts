// Proof-system parameters, the shape derived from them, and the security estimates.
import { ROUNDS, WIDTH } from './rpo.ts';
import { EXT_DEGREE } from './ext.ts';

export interface StarkParams {
  /** Trace rows (power of two): ROUNDS + 1 real rows, the rest uniformly random (zero knowledge). */
  traceLength: number;
  /** LDE domain size / trace length (power of two ≥ 8, since the constraints have degree 7). */
  blowup: number;
  /** Distinct FRI query positions. */
  queries: number;
  /** Proof-of-work bits required on the transcript before queries are drawn. */
  grindingBits: number;
  /** FRI stops folding when the degree bound reaches this (power of two); the remainder is sent in the clear. */
  friRemainderDegree: number;
}

/**
 * Shipped parameters: blowup 16 (4 bits per query under the usual conjecture), 28 queries and 16
 * grinding bits give 112 + 16 = 128 bits, capped at 128 by SHA-256's collision bound (see
 * securityLevel). 28 queries fit the zero-knowledge budget of a 128-row trace (4q + 6 = 118 ≤ 120 random rows).
 */
export const DEFAULT_PARAMS: StarkParams = {
  traceLength: 128,
  blowup: 16,
  queries: 28,
  grindingBits: 16,
  friRemainderDegree: 8,
};

export const CONSTRAINT_DEGREE = 7;
export const EXTENSION_DEGREE = EXT_DEGREE;
export const BASE_FIELD_BITS = 64;
export const HASH_COLLISION_BITS = 128; // SHA-256 birthday bound (Merkle trees and transcript)

export interface ProofShape {
  params: StarkParams;
  n: number;
  ldeSize: number;
  /** Offset of the LDE coset (the group generator, so the coset avoids every trace subgroup). */
  ldeOffset: bigint;
  /** Degree bound of the composition polynomial H (deg H < compositionBound). */
  compositionBound: number;
  /** Length of each ext-valued mask polynomial a_j (≥ openings of each segment). */
  maskLength: number;
  /** Size of the coset on which the prover evaluates H (a power of two > deg H, dividing the LDE size). */
  compositionDomain: number;
  /** Segment stride d: H(x) = sum_j x^(j d) H_j(x), each H_j of degree < n. */
  segmentStride: number;
  segments: number;
  /** Base columns in the composition commitment: 3 per segment + 3 for the FRI randomizer R. */
  compositionColumns: number;
  friFolds: number;
  /** Depth of the trace/composition trees (leaves are x, -x row pairs). */
  treeDepth: number;
}

const isPow2 = (x: number) => Number.isInteger(x) && x > 0 && (x & (x - 1)) === 0;
const nextPow2 = (x: number) => 2 ** Math.ceil(Math.log2(x));

export function deriveShape(params: StarkParams): ProofShape {
  const { traceLength: n, blowup, queries: q, grindingBits, friRemainderDegree: r } = params;
  if (!isPow2(n) || n < 16 || n > 2 ** 16) throw new Error('params: traceLength must be a power of two in [16, 2^16]');
  if (!isPow2(blowup) || blowup < 8 || blowup > 64) throw new Error('params: blowup must be a power of two in [8, 64]');
  if (n % 8 !== 0) throw new Error('params: traceLength must be a multiple of the round-constant period');
  if (!Number.isInteger(q) || q < 1) throw new Error('params: queries must be a positive integer');
  if (!Number.isInteger(grindingBits) || grindingBits < 0 || grindingBits > 30) throw new Error('params: grindingBits in [0, 30]');
  if (!isPow2(r) || r >= n) throw new Error('params: friRemainderDegree must be a power of two below traceLength');
  const ldeSize = n * blowup;
  if (q > ldeSize / 2) throw new Error('params: more queries than FRI positions');
  // Zero knowledge: each trace column is opened (directly or through H) at x, -x, g x, -g x per query
  // and at z, g z (an F_p^3 value each: 3 base-field functionals), so it needs at least 4q + 6
  // uniformly random rows.
  const randomRows = n - (ROUNDS + 1);
  if (randomRows < 4 * q + 2 * EXT_DEGREE) throw new Error('params: traceLength too small for zero knowledge at this query count');
  // deg(transition) ≤ 7(n-1), divided by a zerofier of degree ROUNDS.
  const compositionBound = CONSTRAINT_DEGREE * (n - 1) - ROUNDS + 1;
  if (compositionBound > ldeSize) throw new Error('params: LDE domain too small for the composition degree');
  // Each segment is opened at x, -x per query and at z: 2q + 1 points.
  const maskLength = 2 * q + 1;
  const segmentStride = n - maskLength;
  if (segmentStride < 1) throw new Error('params: traceLength too small for the segment masks');
  const segments = 1 + Math.ceil((compositionBound - n) / segmentStride);
  return {
    params,
    n,
    ldeSize,
    ldeOffset: 7n,
    compositionBound,
    maskLength,
    segmentStride,
    segments,
    compositionColumns: EXT_DEGREE * (segments + 1),
    compositionDomain: nextPow2(compositionBound),
    friFolds: Math.log2(n / r),
    treeDepth: Math.log2(ldeSize / 2),
  };
}

export interface SecurityLevel {
  /** min(query, field, hash), floored: the usual conjecture (ethSTARK / Winterfell convention). */
  conjecturedBits: number;
  /** The list-decoding-regime bound below, floored. */
  provenBits: number;
  /** queries · log2(blowup) + grinding bits. */
  queryBits: number;
  /** log2|F_{p^3}| − log2(LDE domain size). */
  fieldBits: number;
  hashBits: number;
}

/**
 * The one place the security figures are computed (README table, SECURITY export, bench and tests).
 *
 * Conjectured (ethSTARK / Winterfell convention): min of
 *  - query bound: queries · log2(blowup) + grinding bits,
 *  - field bound: log2|F_{p^3}| − log2(LDE domain size) (192 − 11 here),
 *  - hash collision bound: 128 bits for SHA-256.
 *
 * Proven: our evaluation of the ethSTARK-style bound in the list-decoding (Johnson) regime,
 * maximised over the proximity parameter m ≥ 3. Error terms (|F| = p^3, rho = 1/blowup,
 * D = LDE size, n = trace length, l = (m + 1/2)/sqrt(rho) the list size):
 *  - ALI (composition coefficients):     l / |F|
 *  - DEEP (out-of-domain point):         l · (7 (n + 1) + n − 1) / |F|
 *  - FRI commit phase:                   (m + 1/2)^7 D^2 / (3 rho^(3/2) |F|) + (2m + 1)(D + 1) folds / (sqrt(rho) |F|)
 *  - FRI query phase:                    (sqrt(rho) (1 + 1/(2m)))^queries · 2^−grinding
 * summed, −log2 taken, then capped by the hash collision bound.
 */
export function securityLevel(params: StarkParams): SecurityLevel {
  const shape = deriveShape(params);
  const log2F = BASE_FIELD_BITS * EXTENSION_DEGREE;
  const queryBits = params.queries * Math.log2(params.blowup) + params.grindingBits;
  const fieldBits = log2F - Math.log2(shape.ldeSize);
  const rho = 1 / params.blowup;
  const D = shape.ldeSize;
  const n = shape.n;
  let best = 0;
  for (let m = 3; m <= 1000; m++) {
    const l = (m + 0.5) / Math.sqrt(rho);
    const terms = [
      Math.log2(l) - log2F,
      Math.log2(l * (CONSTRAINT_DEGREE * (n + 1) + n - 1)) - log2F,
      7 * Math.log2(m + 0.5) + 2 * Math.log2(D) - Math.log2(3) - 1.5 * Math.log2(rho) - log2F,
      Math.log2((2 * m + 1) * (D + 1) * shape.friFolds) - 0.5 * Math.log2(rho) - log2F,
      params.queries * Math.log2(Math.sqrt(rho) * (1 + 1 / (2 * m))) - params.grindingBits,
    ];
    const max = Math.max(...terms);
    const total = max + Math.log2(terms.reduce((s, t) => s + 2 ** (t - max), 0));
    best = Math.max(best, -total);
  }
  return {
    conjecturedBits: Math.floor(Math.min(queryBits, fieldBits, HASH_COLLISION_BITS)),
    provenBits: Math.floor(Math.min(best, HASH_COLLISION_BITS)),
    queryBits,
    fieldBits,
    hashBits: HASH_COLLISION_BITS,
  };
}

/** The README's security table (Markdown), from securityLevel. */
export function securityTable(params: StarkParams = DEFAULT_PARAMS): string {
  const s = securityLevel(params);
  const shape = deriveShape(params);
  const rows: [string, string][] = [
    ['Field', 'Goldilocks p = 2^64 − 2^32 + 1; challenges in F_p[x]/(x^3 − x − 1) (~2^192)'],
    ['Statement hash', 'RPO (Rescue-Prime Optimized: width 12, rate 8, 7 rounds, published constants)'],
    ['Commitments / transcript', 'SHA-256 (salted Merkle trees; Fiat–Shamir hash chain)'],
    ['Trace / LDE domain', `${params.traceLength} rows × ${WIDTH} columns / ${shape.ldeSize} points (blowup ${params.blowup})`],
    ['FRI', `folding 2, ${shape.friFolds} folds, remainder degree < ${params.friRemainderDegree}`],
    ['Queries / grinding', `${params.queries} / ${params.grindingBits} bits`],
    ['Query bound', `${params.queries} · log2(${params.blowup}) + ${params.grindingBits} = ${s.queryBits} bits`],
    ['Field bound', `${BASE_FIELD_BITS * EXTENSION_DEGREE} − log2(${shape.ldeSize}) = ${s.fieldBits} bits`],
    ['Hash collision bound', `${s.hashBits} bits`],
    ['**Conjectured security**', `**${s.conjecturedBits} bits** (minimum of the three bounds)`],
    ['**Proven security**', `**${s.provenBits} bits** (list-decoding regime, ethSTARK-style bound)`],
  ];
  return ['| Parameter | Value |', '| --- | --- |', ...rows.map(([a, b]) => `| ${a} | ${b} |`)].join('\n');
}

/** Conjectured security bits (see securityLevel). */
export function conjecturedSecurityBits(params: StarkParams): number {
  return securityLevel(params).conjecturedBits;
}
/** Proven security bits (see securityLevel). */
export function provenSecurityBits(params: StarkParams): number {
  return securityLevel(params).provenBits;
}

export const TRACE_WIDTH = WIDTH;
