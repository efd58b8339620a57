import { poseidon } from '#lib/zk/poseidon.ts';

/**
 * Poseidon Merkle trees of fixed depth, as the membership circuits read them: the parent of
 * (left, right) is Poseidon(left, right); pathIndices[i] = 1 when the node is the right child at
 * level i; empty leaves are 0 and an empty subtree of height i hashes to zeros[i].
 */
export const TREE_DEPTH = 20;

let zerosCache: Promise<bigint[]> | undefined;
/** zeros[0] = 0, zeros[i + 1] = Poseidon(zeros[i], zeros[i]); zeros[depth] is the empty root. */
export function zeros(): Promise<bigint[]> {
  zerosCache ??= (async () => {
    const z = [0n];
    for (let i = 0; i < TREE_DEPTH; i++) z.push(await poseidon([z[i]!, z[i]!]));
    return z;
  })();
  return zerosCache;
}

export const emptyRoot = async (): Promise<bigint> => (await zeros())[TREE_DEPTH]!;

/**
 * Appends `leaf` at `index` to an incremental tree given its frontier (the last left node of each
 * level, `filled`): TREE_DEPTH hashes. Returns the new root and frontier.
 */
export async function insertLeaf(filled: bigint[], index: number, leaf: bigint): Promise<{ root: bigint; filled: bigint[] }> {
  if (index >= 2 ** TREE_DEPTH) throw new Error('the tree is full');
  const z = await zeros();
  const next = [...filled];
  let node = leaf;
  let idx = index;
  for (let i = 0; i < TREE_DEPTH; i++) {
    if (idx % 2 === 0) {
      next[i] = node;
      node = await poseidon([node, z[i]!]);
    } else {
      node = await poseidon([next[i] ?? z[i]!, node]);
    }
    idx = Math.floor(idx / 2);
  }
  return { root: node, filled: next };
}

/** The levels of the tree over `leaves` (only the non-empty prefix of each level: about n hashes). */
async function levels(leaves: bigint[]): Promise<bigint[][]> {
  const z = await zeros();
  const out: bigint[][] = [leaves];
  for (let i = 0; i < TREE_DEPTH; i++) {
    const below = out[i]!;
    const up: bigint[] = [];
    for (let j = 0; j < below.length; j += 2) up.push(await poseidon([below[j]!, below[j + 1] ?? z[i]!]));
    out.push(up);
  }
  return out;
}

/** The root over `leaves` in order (the empty root for none). */
export async function rootOf(leaves: bigint[]): Promise<bigint> {
  if (leaves.length === 0) return emptyRoot();
  return (await levels(leaves))[TREE_DEPTH]![0]!;
}

/** The membership circuits' private inputs for the leaf at `index`: siblings and directions. */
export async function merklePath(leaves: bigint[], index: number): Promise<{ root: bigint; pathElements: string[]; pathIndices: string[] }> {
  if (index < 0 || index >= leaves.length) throw new Error('no leaf at this index');
  const z = await zeros();
  const lv = await levels(leaves);
  const pathElements: string[] = [];
  const pathIndices: string[] = [];
  let idx = index;
  for (let i = 0; i < TREE_DEPTH; i++) {
    pathElements.push(String(lv[i]![idx ^ 1] ?? z[i]!));
    pathIndices.push(String(idx & 1));
    idx >>= 1;
  }
  return { root: lv[TREE_DEPTH]![0]!, pathElements, pathIndices };
}
