import { afterAll, describe, expect, it } from 'vitest';
import { appendLeaf, emptyTree, merklePath, poseidonHash2, rootOf, TREE_DEPTH, zeroHashes } from '#lib/zk/merkle.ts';
import { generateProof, terminateCurves } from '#lib/zk/groth16.ts';
import { poseidon } from '#lib/zk/poseidon.ts';

/** The attest groups' tree (lib/zk/merkle.ts, shared with the pools) against the plain tree and the membership circuit. */
afterAll(async () => terminateCurves());

describe('Poseidon Merkle tree (depth 20) for the attest groups', () => {
  it("hashes as lib/zk/poseidon.ts (the attest fields' Poseidon) does", async () => {
    const h = await poseidonHash2();
    expect(h(3n, 4n)).toBe(await poseidon([3n, 4n]));
    const z = zeroHashes(h);
    expect(z).toHaveLength(TREE_DEPTH + 1);
    expect(z[1]).toBe(await poseidon([0n, 0n]));
  });

  it('the incremental root after each insert equals the root of the whole list', async () => {
    const h = await poseidonHash2();
    let tree = emptyTree(h);
    const leaves: bigint[] = [];
    expect(rootOf(h, [])).toBe(tree.root);
    for (let i = 0; i < 7; i++) {
      const leaf = await poseidon([BigInt(1000 + i)]);
      tree = appendLeaf(h, tree, leaf);
      leaves.push(leaf);
      expect(tree.root).toBe(rootOf(h, leaves));
    }
  });

  it('a path from merklePath proves the leaf in the membership circuit, whose root output is the tree root', async () => {
    const h = await poseidonHash2();
    const leaves = await Promise.all([11n, 12n, 13n, 14n, 15n].map((x) => poseidon([x])));
    for (const index of [0, 3, 4]) {
      const { root, pathElements, pathIndices } = merklePath(h, leaves, index);
      expect(root).toBe(rootOf(h, leaves));
      const out = await generateProof('membership', {
        leaf: leaves[index]!.toString(),
        pathElements: pathElements.map(String),
        pathIndices: pathIndices.map(String),
      });
      expect(out.publicSignals[0]).toBe(root.toString());
    }
  }, 60_000);

  it('another leaf or a changed path gives another root', async () => {
    const h = await poseidonHash2();
    const leaves = [1n, 2n, 3n];
    const a = rootOf(h, leaves);
    expect(rootOf(h, [1n, 2n, 4n])).not.toBe(a);
    expect(rootOf(h, [2n, 1n, 3n])).not.toBe(a);
    expect(() => merklePath(h, leaves, 3)).toThrow(/not in a tree/);
  });
});
