import { afterAll, describe, expect, it } from 'vitest';
import { emptyRoot, insertLeaf, merklePath, rootOf, TREE_DEPTH, zeros } from '#lib/attest/merkle.ts';
import { generateProof, terminateCurves } from '#lib/zk/groth16.ts';
import { poseidon } from '#lib/zk/poseidon.ts';

/** The attest groups' incremental Merkle tree against the plain tree and the membership circuit. */
afterAll(async () => terminateCurves());

describe('Poseidon Merkle tree (depth 20)', () => {
  it('the incremental root after each insert equals the root of the whole list', async () => {
    const z = await zeros();
    let filled = z.slice(0, TREE_DEPTH);
    const leaves: bigint[] = [];
    expect(await rootOf([])).toBe(await emptyRoot());
    for (let i = 0; i < 7; i++) {
      const leaf = await poseidon([BigInt(1000 + i)]);
      const next = await insertLeaf(filled, i, leaf);
      filled = next.filled;
      leaves.push(leaf);
      expect(next.root).toBe(await rootOf(leaves));
    }
  });

  it('a path from merklePath proves the leaf in the membership circuit, whose root output is the tree root', async () => {
    const leaves = await Promise.all([11n, 12n, 13n, 14n, 15n].map((x) => poseidon([x])));
    for (const index of [0, 3, 4]) {
      const { root, pathElements, pathIndices } = await merklePath(leaves, index);
      expect(root).toBe(await rootOf(leaves));
      const out = await generateProof('membership', { leaf: leaves[index]!.toString(), pathElements, pathIndices });
      expect(out.publicSignals[0]).toBe(root.toString());
    }
  }, 60_000);

  it('another leaf or a changed path gives another root', async () => {
    const leaves = [1n, 2n, 3n];
    const a = await rootOf(leaves);
    expect(await rootOf([1n, 2n, 4n])).not.toBe(a);
    expect(await rootOf([2n, 1n, 3n])).not.toBe(a);
    await expect(merklePath(leaves, 3)).rejects.toThrow(/no leaf/);
  });
});
