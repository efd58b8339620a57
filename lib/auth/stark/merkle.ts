// SHA-256 Merkle trees with domain-separated leaves (0x00) and nodes (0x01), and compact
// multi-openings: the sibling hashes needed for a sorted set of leaves, in one canonical order,
// so the proof has no optional or reorderable parts.
import { hash } from 'node:crypto';

export const DIGEST_BYTES = 32;
const LEAF_TAG = Buffer.from([0]);
const NODE_TAG = Buffer.from([1]);

// One-shot crypto.hash on a concatenated buffer is about twice as fast as a createHash chain.
export function hashLeaf(data: Uint8Array): Buffer {
  return hash('sha256', Buffer.concat([LEAF_TAG, data]), 'buffer');
}
export function hashNode(left: Uint8Array, right: Uint8Array): Buffer {
  return hash('sha256', Buffer.concat([NODE_TAG, left, right]), 'buffer');
}

export class MerkleTree {
  /** layers[0] are leaf hashes, the last layer is [root]. */
  readonly layers: Buffer[][];
  constructor(leaves: readonly Uint8Array[]) {
    const n = leaves.length;
    if (n < 2 || (n & (n - 1)) !== 0) throw new Error('merkle: leaf count must be a power of two ≥ 2');
    const layers: Buffer[][] = [leaves.map(hashLeaf)];
    while (layers[layers.length - 1].length > 1) {
      const prev = layers[layers.length - 1];
      const next = new Array<Buffer>(prev.length >> 1);
      for (let i = 0; i < next.length; i++) next[i] = hashNode(prev[2 * i], prev[2 * i + 1]);
      layers.push(next);
    }
    this.layers = layers;
  }
  get root(): Buffer {
    return this.layers[this.layers.length - 1][0];
  }
  get depth(): number {
    return this.layers.length - 1;
  }
  /** Sibling hashes for the sorted, distinct leaf indices, in verification order. */
  openMany(indices: readonly number[]): Buffer[] {
    assertSortedDistinct(indices, this.layers[0].length);
    const nodes: Buffer[] = [];
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
export function verifyMany(
  root: Uint8Array,
  depth: number,
  indices: readonly number[],
  leaves: readonly Uint8Array[],
  nodes: readonly Uint8Array[],
): boolean {
  if (indices.length !== leaves.length) return false;
  let cur = indices.slice();
  let hashes: Buffer[] = leaves.map(hashLeaf);
  let k = 0;
  for (let level = 0; level < depth; level++) {
    const nextIdx: number[] = [];
    const nextHash: Buffer[] = [];
    for (let i = 0; i < cur.length; i++) {
      const idx = cur[i];
      let parent: Buffer;
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
  return k === nodes.length && cur.length === 1 && cur[0] === 0 && Buffer.from(root).equals(hashes[0]);
}
