// SHA-256 Merkle trees with domain-separated leaves (0x00) and nodes (0x01), and compact
// multi-openings: the sibling hashes needed for a sorted set of leaves, in one canonical order,
// so the proof has no optional or reorderable parts.
// (SHA-256 rather than RPO: in BigInt TypeScript one RPO permutation costs about a millisecond,
// SHA-256 of a leaf about a microsecond, and the trees hash thousands of leaves.)
import { sha256, equalBytes } from './sha256.ts';

export const DIGEST_BYTES = 32;
const LEAF_TAG = Uint8Array.of(0);
const NODE_TAG = Uint8Array.of(1);

export function hashLeaf(data: Uint8Array): Uint8Array {
  return sha256(LEAF_TAG, data);
}
export function hashNode(left: Uint8Array, right: Uint8Array): Uint8Array {
  return sha256(NODE_TAG, left, right);
}

export class MerkleTree {
  /** layers[0] are leaf hashes, the last layer is [root]. */
  readonly layers: Uint8Array[][];
  constructor(leaves: readonly Uint8Array[]) {
    const n = leaves.length;
    if (n < 2 || (n & (n - 1)) !== 0) throw new Error('merkle: leaf count must be a power of two ≥ 2');
    const layers: Uint8Array[][] = [leaves.map(hashLeaf)];
    while (layers[layers.length - 1].length > 1) {
      const prev = layers[layers.length - 1];
      const next = new Array<Uint8Array>(prev.length >> 1);
      for (let i = 0; i < next.length; i++) next[i] = hashNode(prev[2 * i], prev[2 * i + 1]);
      layers.push(next);
    }
    this.layers = layers;
  }
  get root(): Uint8Array {
    return this.layers[this.layers.length - 1][0];
  }
  get depth(): number {
    return this.layers.length - 1;
  }
  /** Sibling hashes for the sorted, distinct leaf indices, in verification order. */
  openMany(indices: readonly number[]): Uint8Array[] {
    assertSortedDistinct(indices, this.layers[0].length);
    const nodes: Uint8Array[] = [];
    let cur = indices.slice();
    for (let level = 0; level < this.depth; level++) {
      const next: number[] = [];
      for (let i = 0; i < cur.length; i++) {
        const idx = cur[i];
        if ((idx & 1) === 0 && cur[i + 1] === idx + 1) i++;
        else nodes.push(this.layers[level][idx ^ 1]);
        next.push(idx >> 1);
      }
      cur = next;
    }
    return nodes;
  }
}

function assertSortedDistinct(indices: readonly number[], size: number): void {
  if (indices.length === 0) throw new Error('merkle: no indices');
  for (let i = 0; i < indices.length; i++) {
    if (!Number.isInteger(indices[i]) || indices[i] < 0 || indices[i] >= size) throw new Error('merkle: index out of range');
    if (i > 0 && indices[i] <= indices[i - 1]) throw new Error('merkle: indices must be sorted and distinct');
  }
}

/** Number of sibling hashes openMany returns for these indices in a tree of the given depth. */
export function multiProofLength(depth: number, indices: readonly number[]): number {
  assertSortedDistinct(indices, 2 ** depth);
  let count = 0;
  let cur = indices.slice();
  for (let level = 0; level < depth; level++) {
    const next: number[] = [];
    for (let i = 0; i < cur.length; i++) {
      const idx = cur[i];
      if ((idx & 1) === 0 && cur[i + 1] === idx + 1) i++;
      else count++;
      next.push(idx >> 1);
    }
    cur = next;
  }
  return count;
}

/** Recomputes the root from leaf data and exactly the sibling hashes openMany produced. */
export function verifyMany(root: Uint8Array, depth: number, indices: readonly number[], leaves: readonly Uint8Array[], nodes: readonly Uint8Array[]): boolean {
  if (indices.length !== leaves.length) return false;
  let cur = indices.slice();
  let hashes: Uint8Array[] = leaves.map(hashLeaf);
  let k = 0;
  for (let level = 0; level < depth; level++) {
    const nextIdx: number[] = [];
    const nextHash: Uint8Array[] = [];
    for (let i = 0; i < cur.length; i++) {
      const idx = cur[i];
      let parent: Uint8Array;
      if ((idx & 1) === 0 && cur[i + 1] === idx + 1) {
        parent = hashNode(hashes[i], hashes[i + 1]);
        i++;
      } else {
        if (k >= nodes.length) return false;
        const sib = nodes[k++];
        parent = (idx & 1) === 0 ? hashNode(hashes[i], sib) : hashNode(sib, hashes[i]);
      }
      nextIdx.push(idx >> 1);
      nextHash.push(parent);
    }
    cur = nextIdx;
    hashes = nextHash;
  }
  return k === nodes.length && cur.length === 1 && cur[0] === 0 && equalBytes(root, hashes[0]);
}
