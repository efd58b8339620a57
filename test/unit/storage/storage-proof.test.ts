import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { decodeStorageProof, encodeStorageProof, linkChoice, linksOf, verifyStorageProof, type ReplicaAnswer } from '#lib/client/storage-proof.ts';
import { importContent } from '#lib/storage/cid.ts';
import { randomBytesOf } from '../../support/storage.ts';
import { CID } from 'multiformats/cid';

/** A DAG in memory (3.5 MiB: a dag-pb root over four raw leaves, none shorter than 0.5 MiB) and honest answers for it. */
async function fixture() {
  const blocks = new Map<string, Uint8Array>();
  const store = { put: async (cid: CID, bytes: Uint8Array) => (blocks.set(cid.toString(), bytes), cid) };
  const { cid } = await importContent([randomBytesOf(3.5 * 1024 * 1024, 9)], store);
  const challenge = randomBytes(32);
  const answer = async (name: string): Promise<ReplicaAnswer> => {
    const nodes: Uint8Array[] = [];
    let at = cid;
    for (let depth = 0; ; depth++) {
      const bytes = blocks.get(at.toString())!;
      nodes.push(bytes);
      const links = linksOf(at, bytes);
      if (!links.length) return { name, atMs: 1_700_000_000_000, nodes };
      at = links[await linkChoice(challenge, name, depth, links.length)]!;
    }
  };
  const replicas = [await answer('a'), await answer('b'), await answer('c')];
  return { cid, challenge, replicas, blocks };
}

describe('storage proofs (lib/client/storage-proof.ts)', () => {
  it('round-trips and verifies honest answers, naming each replica and its block', async () => {
    const { cid, challenge, replicas } = await fixture();
    const hex = encodeStorageProof({ challenge, root: cid, replicas });
    expect(hex).toMatch(/^53525031/); // "SRP1"
    const decoded = decodeStorageProof(hex);
    expect(decoded.root.equals(cid)).toBe(true);
    const check = await verifyStorageProof(hex, { cid: cid.toString(), challenge: Buffer.from(challenge).toString('hex'), minReplicas: 3 });
    expect(check.valid).toBe(true);
    expect(check.replicas.map((r) => r.name)).toEqual(['a', 'b', 'c']);
    for (const r of check.replicas) expect(r.block).toMatch(/^bafkrei/); // a raw leaf
  });

  it('fails a flipped byte, a block other than the challenge picks, a duplicate replica, too few replicas', async () => {
    const { cid, challenge, replicas, blocks } = await fixture();
    const ok = { cid: cid.toString() };
    const flipped = replicas.map((r) => ({ ...r, nodes: r.nodes.map((n) => n.slice()) })); // two replicas may share a leaf
    flipped[1]!.nodes[1]![100]! ^= 1;
    expect(await verifyStorageProof(encodeStorageProof({ challenge, root: cid, replicas: flipped }), ok)).toMatchObject({
      valid: false,
      reason: expect.stringMatching(/b: block at depth 1/),
    });
    // A genuine leaf, but not the one this challenge selects for this replica.
    const chosen = replicas[0]!.nodes[1]!;
    const other = [...blocks.values()].find((b) => b.length > 1000 && Buffer.compare(Buffer.from(b), Buffer.from(chosen)) !== 0)!;
    const swapped = [{ ...replicas[0]!, nodes: [replicas[0]!.nodes[0]!, other] }, replicas[1]!, replicas[2]!];
    expect((await verifyStorageProof(encodeStorageProof({ challenge, root: cid, replicas: swapped }), ok)).valid).toBe(false);
    const twice = [replicas[0]!, replicas[0]!, replicas[1]!];
    expect((await verifyStorageProof(encodeStorageProof({ challenge, root: cid, replicas: twice }), ok)).reason).toMatch(/twice/);
    const two = encodeStorageProof({ challenge, root: cid, replicas: replicas.slice(0, 2) });
    expect((await verifyStorageProof(two, { ...ok, minReplicas: 3 })).valid).toBe(false);
    expect((await verifyStorageProof(two, { ...ok, minReplicas: 2 })).valid).toBe(true);
    const hex = encodeStorageProof({ challenge, root: cid, replicas });
    expect((await verifyStorageProof(hex.slice(0, -2), ok)).valid).toBe(false);
    expect((await verifyStorageProof(`${hex}00`, ok)).valid).toBe(false);
    expect((await verifyStorageProof('zz', ok)).valid).toBe(false);
  });
});
