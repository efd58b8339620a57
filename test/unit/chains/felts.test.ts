import { describe, expect, it } from 'vitest';
import { hash, shortString } from 'starknet';
import {
  bytesToFelts,
  feltToUuid,
  feltToZkId,
  identityProofFelts,
  identityProofHash,
  PROOF_HASH_TAG,
  STARK_PRIME,
  uuidToFelt,
  zkIdToFelt,
} from '#lib/chains/chain-b/felts.ts';

describe('chain B felt encodings', () => {
  it('proof_id: the uuid as a 128-bit integer, and back', () => {
    const id = '0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0';
    expect(uuidToFelt(id)).toBe(0x0f1e2d3c4b5a49688776a5b4c3d2e1f0n);
    expect(feltToUuid(uuidToFelt(id))).toBe(id);
    expect(uuidToFelt('ffffffff-ffff-4fff-bfff-ffffffffffff') < STARK_PRIME).toBe(true);
    expect(() => uuidToFelt('not-a-uuid')).toThrow();
  });

  it('zk_id: the zkId as a Cairo short string', () => {
    const zkId = 'did:zk:abcdefghij012345';
    expect(zkIdToFelt(zkId)).toBe(BigInt(`0x${Buffer.from(zkId).toString('hex')}`));
    expect(zkIdToFelt(zkId)).toBe(BigInt(shortString.encodeShortString(zkId)));
    expect(feltToZkId(zkIdToFelt(zkId))).toBe(zkId);
    expect(() => zkIdToFelt('x'.repeat(32))).toThrow();
  });

  it('byte strings: length then 31-byte big-endian chunks (so lengths disambiguate)', () => {
    expect(bytesToFelts(new Uint8Array([]))).toEqual([0n]);
    expect(bytesToFelts(new Uint8Array([1, 2]))).toEqual([2n, 0x0102n]);
    expect(bytesToFelts(new Uint8Array([0, 1, 2]))).toEqual([3n, 0x0102n]);
    const b = new Uint8Array(64).map((_, i) => i + 1);
    const felts = bytesToFelts(b);
    expect(felts.length).toBe(4); // 64 = 31 + 31 + 2
    expect(felts[0]).toBe(64n);
    expect(felts[3]).toBe(0x3f40n);
    for (const f of felts) expect(f < STARK_PRIME).toBe(true);
  });

  it('proof_hash: Poseidon over the documented felts; any field change changes it', () => {
    const p = {
      proofId: '0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0',
      zkId: 'did:zk:abcdefghij012345',
      publicKey: new Uint8Array(32).fill(7),
      nonce: 'abcdefghijklmnop',
      timestamp: 1_700_000_000_000,
      signature: new Uint8Array(64).fill(9),
    };
    const felts = identityProofFelts(p);
    expect(felts[0]).toBe(BigInt(PROOF_HASH_TAG));
    expect(felts.slice(1, 3)).toEqual([uuidToFelt(p.proofId), zkIdToFelt(p.zkId)]);
    expect(felts.length).toBe(1 + 1 + 1 + 3 + 2 + 1 + 4);
    const h = identityProofHash(p);
    expect(h).toBe(BigInt(hash.computePoseidonHashOnElements(felts)));
    expect(h).not.toBe(0n);
    expect(h < STARK_PRIME).toBe(true);
    const variants = [
      { ...p, proofId: '0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f1' },
      { ...p, zkId: 'did:zk:abcdefghij012346' },
      { ...p, publicKey: new Uint8Array(32).fill(8) },
      { ...p, nonce: 'abcdefghijklmnoq' },
      { ...p, timestamp: p.timestamp + 1 },
      { ...p, signature: new Uint8Array(64).fill(10) },
    ];
    for (const v of variants) expect(identityProofHash(v)).not.toBe(h);
  });
});
