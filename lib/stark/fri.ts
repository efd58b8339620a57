// FRI with folding factor 2 over F_{p^3}-valued evaluations on a coset of a power-of-two subgroup.
// Layer 0 (the DEEP composition) is not committed here: its values at queried points are
// recomputed by the caller from the trace/composition openings. Layers 1..L-1 are committed
// (leaves are the pair f(x), f(-x)); layer L is sent as a remainder polynomial of degree < r.
import { P as MODULUS, inv, pow, rootOfUnity } from './field.ts';
import { type Fp3, eAdd, eSub, eMul, eMulBase, eEq, writeExt, EXT_BYTES } from './ext.ts';
import { cosetInterpolate, evalExtAtBase } from './poly.ts';
import { MerkleTree, verifyMany } from './merkle.ts';
import type { Transcript } from './transcript.ts';

// A module-local copy: hot loops read it as a plain constant, not through an import binding.
const P = MODULUS;

export interface FriConfig {
  domainSize: number;
  offset: bigint;
  /** Degree bound of layer 0 (deg < degreeBound). */
  degreeBound: number;
  remainderDegree: number;
}
export function friFolds(c: FriConfig): number {
  return Math.log2(c.degreeBound / c.remainderDegree);
}

const INV2 = inv(2n);

/** f_{i+1}(x^2) = (f(x) + f(-x))/2 + beta (f(x) - f(-x))/(2x). */
export function foldPair(a: Fp3, b: Fp3, beta: Fp3, xInv: bigint): Fp3 {
  const sum = eAdd(a, b);
  const diff = eMulBase(eSub(a, b), xInv);
  return eMulBase(eAdd(sum, eMul(beta, diff)), INV2);
}

function foldLayer(evals: readonly Fp3[], beta: Fp3, offset: bigint): Fp3[] {
  const half = evals.length >> 1;
  const wInv = inv(rootOfUnity(evals.length));
  let xInv = inv(offset);
  const out = new Array<Fp3>(half);
  for (let j = 0; j < half; j++) {
    out[j] = foldPair(evals[j], evals[j + half], beta, xInv);
    xInv = (xInv * wInv) % P;
  }
  return out;
}

export function pairLeaf(a: Fp3, b: Fp3): Uint8Array {
  const buf = new Uint8Array(2 * EXT_BYTES);
  writeExt(buf, 0, a);
  writeExt(buf, EXT_BYTES, b);
  return buf;
}

export interface FriProverState {
  layers: { evals: Fp3[]; tree: MerkleTree }[];
  remainder: Fp3[];
}

/** Commit phase. Transcript order: beta_0; then for each committed layer: root_i, beta_i; then the remainder. */
export function friCommit(evals0: readonly Fp3[], c: FriConfig, transcript: Transcript): FriProverState {
  const L = friFolds(c);
  const layers: FriProverState['layers'] = [];
  let cur = evals0.slice();
  let offset = c.offset;
  for (let i = 0; i < L; i++) {
    const beta = transcript.drawExt();
    cur = foldLayer(cur, beta, offset);
    offset = (offset * offset) % P;
    if (i < L - 1) {
      const half = cur.length >> 1;
      const tree = new MerkleTree(Array.from({ length: half }, (_, j) => pairLeaf(cur[j], cur[j + half])));
      layers.push({ evals: cur, tree });
      transcript.absorb(tree.root);
    }
  }
  // An honest last layer has degree < remainderDegree; the first coefficients are sent as-is
  // (a dishonest, high-degree layer is truncated here and then fails the remainder check).
  const c0 = cosetInterpolate(
    cur.map((v) => v[0]),
    offset,
  );
  const c1 = cosetInterpolate(
    cur.map((v) => v[1]),
    offset,
  );
  const c2 = cosetInterpolate(
    cur.map((v) => v[2]),
    offset,
  );
  const remainder: Fp3[] = Array.from({ length: c.remainderDegree }, (_, i) => [c0[i], c1[i], c2[i]] as Fp3);
  transcript.absorbExts(remainder);
  return { layers, remainder };
}

export interface FriLayerOpening {
  /** One pair per distinct leaf index, in ascending leaf order. */
  pairs: [Fp3, Fp3][];
  nodes: Uint8Array[];
}

/** Sorted distinct leaf indices a layer must open, given the layer-0 query positions. */
export function layerLeafIndices(positions: readonly number[], layer: number, domainSize: number): number[] {
  const half = domainSize >> (layer + 1);
  return [...new Set(positions.map((p) => p % half))].sort((a, b) => a - b);
}

export function friOpen(state: FriProverState, positions: readonly number[], c: FriConfig): FriLayerOpening[] {
  return state.layers.map((layer, li) => {
    const half = layer.evals.length >> 1;
    const leaves = layerLeafIndices(positions, li + 1, c.domainSize);
    return {
      pairs: leaves.map((j) => [layer.evals[j], layer.evals[j + half]] as [Fp3, Fp3]),
      nodes: layer.tree.openMany(leaves),
    };
  });
}

/** Verifier side of the commit phase: replays the transcript and returns the folding challenges. */
export function friReplay(c: FriConfig, roots: readonly Uint8Array[], remainder: readonly Fp3[], transcript: Transcript): Fp3[] {
  const L = friFolds(c);
  const betas: Fp3[] = [];
  for (let i = 0; i < L; i++) {
    betas.push(transcript.drawExt());
    if (i < L - 1) transcript.absorb(roots[i]);
  }
  transcript.absorbExts(remainder);
  return betas;
}

/**
 * Query phase check. `layer0[q]` holds f0(x_q), f0(-x_q) for positions[q] (sorted, distinct, in [0, N/2)).
 * Returns null on success or a short reason.
 */
export function friVerify(
  c: FriConfig,
  roots: readonly Uint8Array[],
  betas: readonly Fp3[],
  remainder: readonly Fp3[],
  positions: readonly number[],
  layer0: readonly (readonly [Fp3, Fp3])[],
  openings: readonly FriLayerOpening[],
): string | null {
  const L = friFolds(c);
  if (roots.length !== L - 1 || openings.length !== L - 1 || betas.length !== L || remainder.length !== c.remainderDegree) {
    return 'fri-shape';
  }
  const N = c.domainSize;
  // values[q] = f_i at index idx[q] of layer i's domain.
  let idx = positions.slice();
  let offset = c.offset;
  let size = N;
  let offInv = inv(offset);
  let values = positions.map((p, q) => foldPair(layer0[q][0], layer0[q][1], betas[0], xInverse(offInv, size, p)));
  offset = (offset * offset) % P;
  offInv = (offInv * offInv) % P;
  size >>= 1;
  for (let i = 1; i < L; i++) {
    const half = size >> 1;
    const leaves = layerLeafIndices(positions, i, N);
    const op = openings[i - 1];
    if (op.pairs.length !== leaves.length) return 'fri-shape';
    if (
      !verifyMany(
        roots[i - 1],
        Math.log2(half),
        leaves,
        op.pairs.map(([a, b]) => pairLeaf(a, b)),
        op.nodes,
      )
    ) {
      return 'fri-merkle';
    }
    const byLeaf = new Map(leaves.map((j, k) => [j, op.pairs[k]]));
    const nextValues: Fp3[] = [];
    const nextIdx: number[] = [];
    for (let q = 0; q < positions.length; q++) {
      const leaf = idx[q] % half;
      const pair = byLeaf.get(leaf)!;
      if (!eEq(pair[idx[q] < half ? 0 : 1], values[q])) return 'fri-fold';
      nextValues.push(foldPair(pair[0], pair[1], betas[i], xInverse(offInv, size, leaf)));
      nextIdx.push(leaf);
    }
    values = nextValues;
    idx = nextIdx;
    offset = (offset * offset) % P;
    offInv = (offInv * offInv) % P;
    size >>= 1;
  }
  const w = rootOfUnity(size);
  for (let q = 0; q < positions.length; q++) {
    const x = (offset * pow(w, BigInt(idx[q]))) % P;
    if (!eEq(evalExtAtBase(remainder, x), values[q])) return 'fri-remainder';
  }
  return null;
}

const invRootCache = new Map<number, bigint>();
/** 1/(offset * w_size^j) = offset^-1 * (w_size^-1)^j: one exponentiation, no inversion per query. */
function xInverse(offsetInv: bigint, size: number, j: number): bigint {
  let r = invRootCache.get(size);
  if (r === undefined) {
    r = inv(rootOfUnity(size));
    invRootCache.set(size, r);
  }
  return (offsetInv * pow(r, BigInt(j))) % P;
}
