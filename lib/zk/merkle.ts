import { getPoseidon } from '#lib/zk/circomlib/poseidon.ts';

/**
 * The one Poseidon Merkle tree of the circuits (the shielded pools' withdraw, the attest groups'
 * membership): the design of the well-studied mixers with circomlib's Poseidon — depth 20, the
 * parent of (left, right) is Poseidon(left, right), leaves appended left to right, empty leaves
 * are 0 and an empty subtree of height i hashes to zeros[i]; pathIndices[i] = 1 when the node is
 * the right child at level i. The server keeps only `filled` (the last left node seen at each
 * level) and appends in O(depth); clients rebuild any path from the list of leaves. Pure: shared
 * by lib/transfer and lib/attest (the servers) and lib/client (the provers).
 */
export const TREE_DEPTH = 20;
export const TREE_CAPACITY = 2 ** TREE_DEPTH;

export type Hash2 = (left: bigint, right: bigint) => bigint;

export interface TreeState {
  size: number;
  root: bigint;
  /** filled[i]: the latest left child at level i (zeros[i] before one exists). */
  filled: bigint[];
}

/** circomlib's Poseidon with two inputs, as the circuit computes it. */
export async function poseidonHash2(): Promise<Hash2> {
  const poseidon = await getPoseidon();
  return (a, b) => poseidon.F.toObject(poseidon([a, b]));
}

/** Poseidon with one input: the nullifier hash. */
export async function poseidonHash1(): Promise<(x: bigint) => bigint> {
  const poseidon = await getPoseidon();
  return (x) => poseidon.F.toObject(poseidon([x]));
}

/** zeros[0] = 0 (the empty leaf), zeros[i + 1] = H(zeros[i], zeros[i]); zeros[depth] is the empty root. */
export function zeroHashes(h: Hash2, depth = TREE_DEPTH): bigint[] {
  const zeros = [0n];
  for (let i = 0; i < depth; i++) zeros.push(h(zeros[i]!, zeros[i]!));
  return zeros;
}

export function emptyTree(h: Hash2, depth = TREE_DEPTH): TreeState {
  const zeros = zeroHashes(h, depth);
  return { size: 0, root: zeros[depth]!, filled: zeros.slice(0, depth) };
}

/** The tree after appending `leaf` at index `state.size` (the state itself is not changed). */
export function appendLeaf(h: Hash2, state: TreeState, leaf: bigint, depth = TREE_DEPTH): TreeState {
  if (state.size >= 2 ** depth) throw new Error('the tree is full');
  const zeros = zeroHashes(h, depth);
  const filled = [...state.filled];
  let index = state.size;
  let node = leaf;
  for (let i = 0; i < depth; i++) {
    if (index % 2 === 0) {
      filled[i] = node;
      node = h(node, zeros[i]!);
    } else {
      node = h(filled[i]!, node);
    }
    index >>= 1;
  }
  return { size: state.size + 1, root: node, filled };
}

export interface MerklePath {
  root: bigint;
  pathElements: bigint[];
  /** 1 when the node is the right child at that level. */
  pathIndices: number[];
}

/** The level above `level` (its non-empty prefix: about half as many hashes as nodes). */
function parents(h: Hash2, level: bigint[], zero: bigint): bigint[] {
  const next: bigint[] = [];
  for (let k = 0; k < level.length; k += 2) next.push(h(level[k]!, k + 1 < level.length ? level[k + 1]! : zero));
  return next;
}

/** The root of the tree holding exactly `leaves` (in order); the empty root for none. */
export function rootOf(h: Hash2, leaves: bigint[], depth = TREE_DEPTH): bigint {
  const zeros = zeroHashes(h, depth);
  if (leaves.length === 0) return zeros[depth]!;
  let level = leaves;
  for (let d = 0; d < depth; d++) level = parents(h, level, zeros[d]!);
  return level[0]!;
}

/** The path of leaf `index` in the tree holding exactly `leaves` (in order), and its root. */
export function merklePath(h: Hash2, leaves: bigint[], index: number, depth = TREE_DEPTH): MerklePath {
  if (!Number.isInteger(index) || index < 0 || index >= leaves.length) throw new Error(`leaf ${index} is not in a tree of ${leaves.length} leaves`);
  const zeros = zeroHashes(h, depth);
  const pathElements: bigint[] = [];
  const pathIndices: number[] = [];
  let level = leaves;
  let i = index;
  for (let d = 0; d < depth; d++) {
    const sibling = i ^ 1;
    pathElements.push(sibling < level.length ? level[sibling]! : zeros[d]!);
    pathIndices.push(i & 1);
    level = parents(h, level, zeros[d]!);
    i >>= 1;
  }
  return { root: level[0]!, pathElements, pathIndices };
}
