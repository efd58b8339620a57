import { buildPoseidon, type Poseidon } from 'circomlibjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { createNote, InvalidNote, noteCommitment, noteNullifierHash, parseNote, serializeNote } from '#lib/client/transfer-note.ts';
import { appendLeaf, emptyTree, merklePath, poseidonHash2, TREE_DEPTH, zeroHashes, type Hash2 } from '#lib/zk/merkle.ts';
import { addressBytes, recipientSignal } from '#lib/transfer/statement.ts';
import { BN254_R } from '#lib/zk/bn254.ts';

/**
 * The pools' tree against an independent computation: circomlibjs's Poseidon (the package entry,
 * not the deep import lib/transfer uses) over a full bottom-up build of the depth-20 tree.
 */
let poseidon: Poseidon;
let h: Hash2;
const H = (a: bigint, b: bigint) => poseidon.F.toObject(poseidon([a, b]));

/** The root of a depth-20 tree with `leaves` at 0.. and zeros elsewhere, bottom-up level by level. */
function independentRoot(leaves: bigint[]): bigint {
  let zero = 0n;
  let level = [...leaves];
  for (let d = 0; d < TREE_DEPTH; d++) {
    if (level.length % 2) level.push(zero);
    const next: bigint[] = [];
    for (let i = 0; i < level.length; i += 2) next.push(H(level[i]!, level[i + 1]!));
    level = next.length ? next : [H(zero, zero)];
    zero = H(zero, zero);
  }
  return level[0]!;
}

beforeAll(async () => {
  poseidon = await buildPoseidon();
  h = await poseidonHash2();
});

describe('incremental tree', () => {
  it('the empty root is zeros[20], as circomlibjs computes it', () => {
    const zeros = zeroHashes(h);
    expect(emptyTree(h).root).toBe(zeros[TREE_DEPTH]);
    let z = 0n;
    for (let i = 0; i < TREE_DEPTH; i++) z = H(z, z);
    expect(zeros[TREE_DEPTH]).toBe(z);
  });

  it('appending leaves one by one gives the root of the whole tree, and every path leads to it', () => {
    const leaves = Array.from({ length: 13 }, (_, i) => BigInt(1000 + i * 7));
    let state = emptyTree(h);
    for (const [i, leaf] of leaves.entries()) {
      state = appendLeaf(h, state, leaf);
      expect(state.size).toBe(i + 1);
      expect(state.root).toBe(independentRoot(leaves.slice(0, i + 1)));
    }
    for (const index of [0, 1, 6, 12]) {
      const path = merklePath(h, leaves, index);
      expect(path.root).toBe(state.root);
      let node = leaves[index]!;
      path.pathElements.forEach((sibling, d) => (node = path.pathIndices[d] ? H(sibling, node) : H(node, sibling)));
      expect(node).toBe(state.root);
    }
  });

  it('a path for a leaf that is not there is refused', () => {
    expect(() => merklePath(h, [1n, 2n], 2)).toThrow(/not in a tree/);
  });
});

describe('notes', () => {
  it('serialize and parse round trip; commitment and nullifier hash are Poseidon', async () => {
    const note = createNote('sol-0.1');
    const text = serializeNote(note);
    expect(text).toMatch(/^shroud-note:v1:sol-0\.1:[0-9a-f]{124}$/);
    expect(parseNote(text)).toEqual(note);
    expect(note.nullifier).toBeLessThan(2n ** 248n);
    expect(await noteCommitment(note)).toBe(H(note.nullifier, note.secret).toString());
    expect(await noteNullifierHash(note)).toBe(poseidon.F.toObject(poseidon([note.nullifier])).toString());
    expect(createNote('sol-0.1').nullifier).not.toBe(note.nullifier);
  });

  it('refuses malformed notes', () => {
    for (const bad of [
      '',
      'shroud-note:v1:sol-1:abc',
      'tornado-eth-0.1-1-0x00',
      `shroud-note:v2:sol-1:${'0'.repeat(124)}`,
      `shroud-note:v1:a b:${'0'.repeat(124)}`,
    ]) {
      expect(() => parseNote(bad), bad).toThrow(InvalidNote);
    }
  });
});

describe('recipient signal', () => {
  it('a 248-bit field element that differs for different addresses; non-addresses refused', async () => {
    const a = await recipientSignal('11111111111111111111111111111111');
    const b = await recipientSignal('Vote111111111111111111111111111111111111111');
    expect(a).toBeLessThan(2n ** 248n);
    expect(a).toBeLessThan(BN254_R);
    expect(a).not.toBe(b);
    expect(addressBytes('not-base58-0OIl')).toBeUndefined();
    expect(addressBytes('1111')).toBeUndefined();
    await expect(recipientSignal('xyz')).rejects.toThrow(/not a chain A address/);
  });
});
