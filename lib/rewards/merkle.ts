import { createHash } from 'node:crypto';

/**
 * The epoch's Merkle tree of (account, amount) leaves, simple enough to check by hand:
 *   leaf = SHA-256(0x00 ‖ account (32 bytes) ‖ amount (u64 big-endian))
 *   node = SHA-256(0x01 ‖ min(a, b) ‖ max(a, b))        (the pair sorted bytewise)
 * Leaves are ordered by account; an odd node at the end of a level moves up unchanged. A proof is
 * the sibling hashes from the leaf up; the 0x00/0x01 prefixes keep a leaf from passing as a node.
 */
const sha256 = (...parts: Buffer[]) => createHash('sha256').update(Buffer.concat(parts)).digest();

export function leafHash(account: string, amount: bigint): Buffer {
  const a = Buffer.from(account, 'hex');
  if (a.length !== 32) throw new Error('an account is 32 bytes of hex');
  const n = Buffer.alloc(8);
  n.writeBigUInt64BE(amount);
  return sha256(Buffer.from([0]), a, n);
}

export function nodeHash(a: Buffer, b: Buffer): Buffer {
  return Buffer.compare(a, b) <= 0 ? sha256(Buffer.from([1]), a, b) : sha256(Buffer.from([1]), b, a);
}

export interface Tree {
  root: string;
  /** The proof of leaf `i` (in account order), hex. */
  proof(i: number): string[];
}

export function buildTree(leaves: Buffer[]): Tree {
  if (leaves.length === 0) return { root: Buffer.alloc(32).toString('hex'), proof: () => [] };
  const levels: Buffer[][] = [leaves];
  while (levels.at(-1)!.length > 1) {
    const level = levels.at(-1)!;
    const next: Buffer[] = [];
    for (let i = 0; i < level.length; i += 2) next.push(i + 1 < level.length ? nodeHash(level[i]!, level[i + 1]!) : level[i]!);
    levels.push(next);
  }
  return {
    root: levels.at(-1)![0]!.toString('hex'),
    proof(i) {
      const out: string[] = [];
      for (const level of levels.slice(0, -1)) {
        const sibling = i % 2 === 0 ? i + 1 : i - 1;
        if (sibling < level.length) out.push(level[sibling]!.toString('hex'));
        i = Math.floor(i / 2);
      }
      return out;
    },
  };
}

export function verifyProof(root: string, leaf: Buffer, proof: string[]): boolean {
  let h = leaf;
  for (const s of proof) h = nodeHash(h, Buffer.from(s, 'hex'));
  return h.toString('hex') === root;
}
