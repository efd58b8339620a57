import { describe, it, expect } from 'vitest';
import { createHash, randomBytes } from 'node:crypto';
import { P, pow, randomFelt } from '../../../lib/stark/field.ts';
import { ROUNDS, WIDTH, ARK1, ARK2, permutationStates, hashKey, keyHashInput, applyRound } from '../../../lib/stark/rpo.ts';
import { transitionBase, periodicAtBase, PERIOD, boundaryConstraints } from '../../../lib/stark/air.ts';
import { sha256, sha256Short, leadingZeroBitsWords, fromHex, toHex } from '../../../lib/stark/sha256.ts';
import { MerkleTree, verifyMany, multiProofLength } from '../../../lib/stark/merkle.ts';
import { Transcript } from '../../../lib/stark/transcript.ts';

const bytes = (s: string) => new TextEncoder().encode(s);

describe('the RPO AIR', () => {
  it('every round satisfies the transition constraint, a wrong next state does not', () => {
    const states = permutationStates(keyHashInput(Array.from({ length: 4 }, () => randomFelt())));
    expect(states.length).toBe(ROUNDS + 1);
    const out = new Array<bigint>(WIDTH);
    const w8 = pow(7n, (P - 1n) / BigInt(PERIOD));
    for (let r = 0; r < ROUNDS; r++) {
      const per = [...ARK1[r], ...ARK2[r]];
      // The periodic columns reproduce the round constants at row r (y = g^(r n / 8) = w_8^r).
      expect(periodicAtBase(pow(w8, BigInt(r)))).toEqual(per);
      transitionBase(states[r], states[r + 1], per, out);
      expect(out.every((v) => v === 0n)).toBe(true);
      const bad = states[r + 1].slice();
      bad[3] = (bad[3] + 1n) % P;
      transitionBase(states[r], bad, per, out);
      expect(out.some((v) => v !== 0n)).toBe(true);
    }
    expect(periodicAtBase(pow(w8, 7n)).every((v) => v === 0n)).toBe(true);
    expect(applyRound(states[0], 0)).toEqual(states[1]);
  });
  it('boundary constraints pin the padding and capacity lanes at row 0 and the digest at the last round', () => {
    const sk = Array.from({ length: 4 }, () => randomFelt());
    const states = permutationStates(keyHashInput(sk));
    const bc = boundaryConstraints(hashKey(sk));
    expect(bc.length).toBe(WIDTH);
    for (const b of bc) expect(states[b.row][b.col]).toBe(b.value);
    // The key lanes 4..7 of row 0 are not pinned.
    expect(bc.filter((b) => b.row === 0).map((b) => b.col)).toEqual([0, 1, 2, 3, 8, 9, 10, 11]);
  });
  it('key hash is deterministic and key-sensitive', () => {
    const sk = [1n, 2n, 3n, 4n];
    expect(hashKey(sk)).toEqual(hashKey([1n, 2n, 3n, 4n]));
    expect(hashKey(sk)).not.toEqual(hashKey([1n, 2n, 3n, 5n]));
    expect(hashKey(sk).every((v) => v < P)).toBe(true);
  });
});

describe('SHA-256 in TypeScript', () => {
  it('matches node:crypto for every length 0..300 and for split inputs', () => {
    for (let len = 0; len <= 300; len++) {
      const m = randomBytes(len);
      expect(Buffer.from(sha256(m)).toString('hex')).toBe(createHash('sha256').update(m).digest('hex'));
      const cut = Math.floor(len / 3);
      expect(Buffer.from(sha256(m.subarray(0, cut), m.subarray(cut))).toString('hex')).toBe(createHash('sha256').update(m).digest('hex'));
    }
  });
});

describe('single-block SHA-256 (grinding)', () => {
  it('matches node:crypto for every length 0..55', () => {
    const out = new Int32Array(8);
    for (let len = 0; len <= 55; len++) {
      const m = randomBytes(len);
      sha256Short(m, out);
      const ref = createHash('sha256').update(m).digest();
      const got = Buffer.alloc(32);
      out.forEach((w, i) => got.writeInt32BE(w, 4 * i));
      expect(got.toString('hex')).toBe(ref.toString('hex'));
    }
    expect(() => sha256Short(new Uint8Array(56), out)).toThrow();
    expect(leadingZeroBitsWords(new Int32Array([0, 0x00ffffff, 0, 0, 0, 0, 0, 0]))).toBe(40);
  });
});

describe('Merkle multi-openings', () => {
  const leaves = Array.from({ length: 64 }, (_, i) => bytes(`leaf-${i}`));
  const tree = new MerkleTree(leaves);
  it('open and verify arbitrary sorted index sets', () => {
    for (const idx of [[0], [63], [0, 1], [1, 2, 3, 40], [5, 9, 10, 11, 33, 62, 63], Array.from({ length: 64 }, (_, i) => i)]) {
      const nodes = tree.openMany(idx);
      expect(nodes.length).toBe(multiProofLength(tree.depth, idx));
      expect(
        verifyMany(
          tree.root,
          tree.depth,
          idx,
          idx.map((i) => leaves[i]),
          nodes,
        ),
      ).toBe(true);
    }
  });
  it('rejects wrong leaves, wrong indices, altered, missing or extra nodes', () => {
    const idx = [3, 17, 18, 50];
    const nodes = tree.openMany(idx);
    const data = idx.map((i) => leaves[i]);
    expect(verifyMany(tree.root, tree.depth, idx, [data[0], data[1], bytes('x'), data[3]], nodes)).toBe(false);
    expect(verifyMany(tree.root, tree.depth, [3, 17, 19, 50], data, nodes)).toBe(false);
    const altered = nodes.map((n, i) => (i === 2 ? n.map((b, j) => (j === 0 ? b ^ 1 : b)) : n));
    expect(verifyMany(tree.root, tree.depth, idx, data, altered)).toBe(false);
    expect(verifyMany(tree.root, tree.depth, idx, data, nodes.slice(1))).toBe(false);
    expect(verifyMany(tree.root, tree.depth, idx, data, [...nodes, nodes[0]])).toBe(false);
    expect(() => tree.openMany([5, 3])).toThrow();
  });
  it('leaves and nodes are domain-separated (a node cannot pose as a leaf)', () => {
    const small = new MerkleTree([bytes('a'), bytes('b'), bytes('c'), bytes('d')]);
    const inner = new Uint8Array([...small.layers[1][0], ...small.layers[1][1]]);
    expect(Buffer.from(new MerkleTree([inner, inner]).root).equals(Buffer.from(small.root))).toBe(false);
  });
});

describe('Fiat–Shamir transcript', () => {
  it('is deterministic, order- and content-sensitive', () => {
    const run = (parts: string[]) => {
      const t = new Transcript('test');
      parts.forEach((p) => t.absorb(bytes(p)));
      return t.drawExt();
    };
    expect(run(['a', 'b'])).toEqual(run(['a', 'b']));
    expect(run(['a', 'b'])).not.toEqual(run(['b', 'a']));
    expect(run(['ab'])).not.toEqual(run(['a', 'b']));
    const t = new Transcript('test');
    expect(t.drawFelt()).not.toBe(t.drawFelt());
  });
  it('draws distinct query positions and grinding nonces that verify', () => {
    const t = new Transcript('q');
    const pos = t.drawDistinctIndices(27, 32);
    expect(new Set(pos).size).toBe(27);
    expect(pos.every((p) => p >= 0 && p < 32)).toBe(true);
    const nonce = t.powWork(10);
    expect(t.powBits(nonce)).toBeGreaterThanOrEqual(10);
  });
});

describe('hex', () => {
  it('fromHex is the strict inverse of toHex: lowercase digits in pairs, nothing else', () => {
    for (const n of [0, 1, 2, 31, 256, 4099]) {
      const b = new Uint8Array(randomBytes(n));
      expect(toHex(b)).toBe(Buffer.from(b).toString('hex'));
      expect(fromHex(toHex(b))).toEqual(b);
    }
    expect(fromHex('00ff7f80')).toEqual(Uint8Array.of(0, 255, 127, 128));
    for (const bad of ['0', 'abc', 'AB', '0A', 'g0', '0x00', ' 00', '00 ', '0/', ':0', '`0', '0g', '+1', '-1', '٠٠']) expect(fromHex(bad), bad).toBeNull();
  });
});
