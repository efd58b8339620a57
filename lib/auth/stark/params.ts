// Proof-system parameters, the shape derived from them, and the security estimates.
import { ROUNDS, WIDTH } from './rescue.ts';

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

/** Shipped parameters. */
export const DEFAULT_PARAMS: StarkParams = {
  traceLength: 128,
  blowup: 8,
  queries: 27,
  grindingBits: 16,
  friRemainderDegree: 8,
};

export const CONSTRAINT_DEGREE = 7;
export const EXTENSION_DEGREE = 2;
export const BASE_FIELD_BITS = 64;
export const HASH_COLLISION_BITS = 128; // SHA-256 birthday bound

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
  /** Segment stride d: H(x) = sum_j x^(j d) H_j(x), each H_j of degree < n. */
  segmentStride: number;
  segments: number;
  /** Base columns in the composition commitment: 2 per segment + 2 for the FRI randomizer R. */
  compositionColumns: number;
  friFolds: number;
  /** Depth of the trace/composition trees (leaves are x, -x row pairs). */
  treeDepth: number;
}

const isPow2 = (x: number) => Number.isInteger(x) && x > 0 && (x & (x - 1)) === 0;

export function deriveShape(params: StarkParams): ProofShape {
  const { traceLength: n, blowup, queries: q, grindingBits, friRemainderDegree: r } = params;
  if (!isPow2(n) || n < 16 || n > 2 ** 16) throw new Error('params: traceLength must be a power of two in [16, 2^16]');
  if (!isPow2(blowup) || blowup < 8 || blowup > 64) throw new Error('params: blowup must be a power of two in [8, 64]');
  if (!Number.isInteger(q) || q < 1) throw new Error('params: queries must be a positive integer');
  if (!Number.isInteger(grindingBits) || grindingBits < 0 || grindingBits > 30) throw new Error('params: grindingBits in [0, 30]');
  if (!isPow2(r) || r >= n) throw new Error('params: friRemainderDegree must be a power of two below traceLength');
  const ldeSize = n * blowup;
  if (q > ldeSize / 2) throw new Error('params: more queries than FRI positions');
  // Zero knowledge: each trace column is opened (directly or through H) at x, -x, g x, -g x per query
  // and at z, g z (two felts each), so it needs at least 4q + 4 uniformly random rows.
  const randomRows = n - (ROUNDS + 1);
  if (randomRows < 4 * q + 4) throw new Error('params: traceLength too small for zero knowledge at this query count');
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
    compositionColumns: 2 * segments + 2,
    friFolds: Math.log2(n / r),
    treeDepth: Math.log2(ldeSize / 2),
  };
}

/**
 * Conjectured security (ethSTARK / Winterfell convention): min of
 *  - query bound: queries * log2(blowup) + grinding bits,
 *  - field bound: log2|F_{p^2}| - log2(LDE domain size),
 *  - hash collision bound: 128 bits for SHA-256.
 */
export function conjecturedSecurityBits(params: StarkParams): number {
  const shape = deriveShape(params);
  const query = params.queries * Math.log2(params.blowup) + params.grindingBits;
  const field = BASE_FIELD_BITS * EXTENSION_DEGREE - Math.log2(shape.ldeSize);
  return Math.floor(Math.min(query, field, HASH_COLLISION_BITS));
}

/**
 * Proven security, our evaluation of the ethSTARK-style bound in the list-decoding (Johnson) regime,
 * maximised over the proximity parameter m ≥ 3. Error terms (|F| = p^2, rho = 1/blowup, D = LDE size,
 * n = trace length, l = (m + 1/2)/sqrt(rho) the list size):
 *  - ALI (composition coefficients):     l / |F|
 *  - DEEP (out-of-domain point):         l * (7 (n + 1) + n - 1) / (|F| - n - D)
 *  - FRI commit phase:                   (m + 1/2)^7 D^2 / (3 rho^(3/2) |F|) + (2m + 1)(D + 1) folds / (sqrt(rho) |F|)
 *  - FRI query phase:                    (sqrt(rho) (1 + 1/(2m)))^queries * 2^-grinding
 * Summed, then capped by the hash collision bound.
 */
export function provenSecurityBits(params: StarkParams): number {
  const shape = deriveShape(params);
  const log2F = BASE_FIELD_BITS * EXTENSION_DEGREE;
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
  return Math.floor(Math.min(best, HASH_COLLISION_BITS));
}

export const TRACE_WIDTH = WIDTH;
