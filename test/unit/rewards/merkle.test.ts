import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildTree, leafHash, verifyProof } from '#lib/rewards/merkle.ts';

const account = (i: number) => createHash('sha256').update(String(i)).digest('hex');

describe('the epoch Merkle tree', () => {
  it('a leaf is SHA-256(0x00 ‖ account ‖ u64 BE amount)', () => {
    const a = 'ab'.repeat(32);
    const expected = createHash('sha256')
      .update(Buffer.concat([Buffer.from([0]), Buffer.from(a, 'hex'), Buffer.from('0000000000000e11', 'hex')]))
      .digest('hex');
    expect(leafHash(a, 3601n).toString('hex')).toBe(expected);
  });

  it('every leaf proves against the root, for any number of leaves; another amount does not', () => {
    fc.assert(
      fc.property(fc.array(fc.bigInt({ min: 1n, max: 1n << 40n }), { minLength: 1, maxLength: 40 }), (amounts) => {
        const leaves = amounts.map((a, i) => leafHash(account(i), a));
        const tree = buildTree(leaves);
        amounts.forEach((a, i) => {
          expect(verifyProof(tree.root, leaves[i]!, tree.proof(i))).toBe(true);
          expect(verifyProof(tree.root, leafHash(account(i), a + 1n), tree.proof(i))).toBe(false);
        });
      }),
      { numRuns: 100 },
    );
  });

  it('one leaf is its own root', () => {
    const l = leafHash(account(1), 5n);
    expect(buildTree([l]).root).toBe(l.toString('hex'));
  });
});
