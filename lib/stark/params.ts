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
 * Shipped parameters: blowup 8, 60 queries and 16 grinding bits. Proven (securityLevel, list-decoding
 * regime): 60 · log2((1 + 1/2m) · sqrt(8)) + 16 ≈ 105 bits; conjectured: 60 · 3 + 16, capped at 128
 * by SHA-256's collision bound. 60 queries need a 256-row trace for zero knowledge (4q + 6 = 246 ≤ 248
 * random rows; 128 rows stopped at 28 queries, 71 proven bits). Blowup 8 rather than 16 keeps the
 * LDE at 2048 points, so proving costs what version 2.0's did (blowup 16 with 44 queries gave 103
 * bits for 1.6× the proving time).
 */
export const DEFAULT_PARAMS: StarkParams = {
  traceLength: 256,
  blowup: 8,
  queries: 60,
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
  /** The proximity parameter m at which the proven bound is best. */
  proximityParameter: number;
  /** queries · log2(blowup) + grinding bits. */
  queryBits: number;
  /** log2|F_{p^3}| − log2(LDE domain size). */
  fieldBits: number;
  hashBits: number;
}

/** Each error term of the proven bound, as log2 of a probability, at proximity parameter m. */
export interface ProvenTerms {
  ali: number;
  deep: number;
  friCommit: number;
  query: number;
}

/** The DEEP step opens the trace at z and g·z. */
const DEEP_OPENINGS = 2;

/**
 * The largest m for which the DEEP step's slackness stays positive, for a trace domain of size h:
 * m ≤ 1 / (2 (sqrt((h + openings) / h) − 1)) (Theorem 2 of eprint 2024/1553; Winterfell uses the same cap).
 */
export function maxProximityParameter(traceLength: number): number {
  return Math.min(1000, Math.ceil(1 / (2 * (Math.sqrt((traceLength + DEEP_OPENINGS) / traceLength) - 1))));
}

/**
 * The error terms of the proven bound at proximity parameter m (|F| = p^3, rho = 1/blowup, D = LDE
 * size, n = trace length, d = 7 the constraint degree, l = m / (rho − 2m/D) the list size at the
 * Johnson radius 1 − (1 + 1/2m)·sqrt(rho)):
 *  - ALI (independent composition coefficients):  l / |F|
 *  - DEEP (out-of-domain point):                  l² · (d (n + openings − 1) + n − 1) / |F|
 *  - FRI commit phase:                            (m + 1/2)^7 · D² / (2 rho^(3/2) |F|) (the other folding terms are far smaller)
 *  - FRI query phase:                             ((1 + 1/2m) sqrt(rho))^queries · 2^−grinding
 */
export function provenTerms(params: StarkParams, m: number): ProvenTerms {
  const shape = deriveShape(params);
  const log2F = BASE_FIELD_BITS * EXTENSION_DEGREE;
  const rho = 1 / params.blowup;
  const D = shape.ldeSize;
  const n = shape.n;
  const l = m / (rho - (2 * m) / D);
  return {
    ali: Math.log2(l) - log2F,
    deep: 2 * Math.log2(l) + Math.log2(CONSTRAINT_DEGREE * (n + DEEP_OPENINGS - 1) + n - 1) - log2F,
    friCommit: 7 * Math.log2(m + 0.5) + 2 * Math.log2(D) - 1 - 1.5 * Math.log2(rho) - log2F,
    query: params.queries * Math.log2((1 + 1 / (2 * m)) * Math.sqrt(rho)) - params.grindingBits,
  };
}

/**
 * The one place the security figures are computed (docs/stark.md's table, SECURITY export, bench and tests).
 *
 * Conjectured (ethSTARK / Winterfell convention): min of
 *  - query bound: queries · log2(blowup) + grinding bits,
 *  - field bound: log2|F_{p^3}| − log2(LDE domain size) (192 − 11 here),
 *  - hash collision bound: 128 bits for SHA-256.
 *
 * Proven: the ethSTARK bound in the list-decoding (Johnson) regime as corrected by eprint 2024/1553
 * (Theorem 2; the list size is m / (rho − 2m/D), not (m + 1/2)/sqrt(rho), the DEEP term carries the
 * list size squared, and m is capped by maxProximityParameter): the terms of provenTerms summed,
 * −log2 taken, maximised over m in [3, maxProximityParameter(n)], then capped by the hash bound.
 */
export function securityLevel(params: StarkParams): SecurityLevel {
  const shape = deriveShape(params);
  const log2F = BASE_FIELD_BITS * EXTENSION_DEGREE;
  const queryBits = params.queries * Math.log2(params.blowup) + params.grindingBits;
  const fieldBits = log2F - Math.log2(shape.ldeSize);
  let best = 0;
  let bestM = 3;
  for (let m = 3; m <= maxProximityParameter(shape.n); m++) {
    // The list size must stay positive (rho > 2m/D); beyond that the bound says nothing.
    if (1 / params.blowup <= (2 * m) / shape.ldeSize) break;
    const t = Object.values(provenTerms(params, m));
    const max = Math.max(...t);
    const bits = -(max + Math.log2(t.reduce((s, x) => s + 2 ** (x - max), 0)));
    if (bits > best) [best, bestM] = [bits, m];
  }
  return {
    conjecturedBits: Math.floor(Math.min(queryBits, fieldBits, HASH_COLLISION_BITS)),
    provenBits: Math.floor(Math.min(best, HASH_COLLISION_BITS)),
    proximityParameter: bestM,
    queryBits,
    fieldBits,
    hashBits: HASH_COLLISION_BITS,
  };
}

/** docs/stark.md's security table (Markdown), from securityLevel. */
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
    ['**Proven security**', `**${s.provenBits} bits** (list-decoding regime, ethSTARK bound as corrected by eprint 2024/1553, m = ${s.proximityParameter})`],
  ];
  return ['| Parameter | Value |', '| --- | --- |', ...rows.map(([a, b]) => `| ${a} | ${b} |`)].join('\n');
}
