import { createHash, randomBytes } from 'node:crypto';
import * as dagPb from '@ipld/dag-pb';
import { UnixFS } from 'ipfs-unixfs';
import { CID } from 'multiformats/cid';
import * as raw from 'multiformats/codecs/raw';
import { create as digestOf } from 'multiformats/hashes/digest';
import { describe, expect, it } from 'vitest';
import { CID_PROFILE, cidOf, importContent } from '#lib/storage/cid.ts';

const text = (s: string) => new TextEncoder().encode(s);
const MiB = 1024 * 1024;

/**
 * Known CIDs published with kubo (go-ipfs) itself: test/cli/add_test.go in ipfs/kubo pins
 * `ipfs add` of "hello world" to these three values (default CIDv0; --cid-version=1, raw leaves;
 * CIDv1 with raw leaves off). The dweb primer (dweb-primer.ipfs.io, "Wrap Filenames and
 * Directory Info around Content") shows `ipfs add` of "version 1 of my text\n".
 */
describe('CIDs are the ones kubo gives the same bytes', () => {
  it('"hello world": CIDv1 raw leaf (our profile), CIDv0, CIDv1 without raw leaves', async () => {
    expect(CID_PROFILE).toBe('unixfs-v1-2025');
    expect(await cidOf(text('hello world'))).toBe('bafkreifzjut3te2nhyekklss27nh3k72ysco7y32koao5eei66wof36n5e');
    expect(await cidOf(text('hello world'), { profile: 'unixfs-v0-2015' })).toBe('Qmf412jQZiuVUtdgnB36FXFX7xg5V6KEbSJ4dpQuhkLyfD');
    expect(await cidOf(text('hello world'), { rawLeaves: false })).toBe('bafybeihykld7uyxzogax6vgyvag42y7464eywpf55gxi5qpoisibh3c5wa');
  });

  it('"version 1 of my text\\n" as CIDv0 (dweb primer)', async () => {
    expect(await cidOf(text('version 1 of my text\n'), { profile: 'unixfs-v0-2015' })).toBe('QmZtmD2qt6fJot32nabSP3CUjicnypEBz7bHVDhPQt9aAy');
  });

  it('CIDv0 and CIDv1 (dag-pb) name the same node: v0.toV1() is the v1 form', () => {
    expect(CID.parse('Qmf412jQZiuVUtdgnB36FXFX7xg5V6KEbSJ4dpQuhkLyfD').toV1().toString()).toBe('bafybeihykld7uyxzogax6vgyvag42y7464eywpf55gxi5qpoisibh3c5wa');
  });

  it('a one-chunk file is its raw leaf: CIDv1(raw, sha2-256(bytes))', async () => {
    const bytes = text('any bytes at all');
    const expected = CID.createV1(raw.code, digestOf(0x12, createHash('sha256').update(bytes).digest())).toString();
    expect(await cidOf(bytes)).toBe(expected);
  });

  it('a multi-chunk file, derived by hand: 1 MiB raw leaves under a dag-pb UnixFS file root', async () => {
    const bytes = new Uint8Array(randomBytes(2.5 * MiB));
    const blocks = new Map<string, Uint8Array>();
    const { cid, size } = await importContent([bytes], { put: async (c: CID, b: Uint8Array) => (blocks.set(c.toString(), b), c) });
    expect(size).toBe(bytes.length);
    const chunks = [bytes.subarray(0, MiB), bytes.subarray(MiB, 2 * MiB), bytes.subarray(2 * MiB)];
    const leaves = chunks.map((c) => CID.createV1(raw.code, digestOf(0x12, createHash('sha256').update(c).digest())));
    const file = new UnixFS({ type: 'file', blockSizes: chunks.map((c) => BigInt(c.length)) });
    const root = dagPb.encode(dagPb.prepare({ Data: file.marshal(), Links: leaves.map((l, i) => ({ Hash: l, Name: '', Tsize: chunks[i]!.length })) }));
    const rootCid = CID.createV1(dagPb.code, digestOf(0x12, createHash('sha256').update(root).digest()));
    expect(cid.toString()).toBe(rootCid.toString());
    expect([...blocks.keys()].sort()).toEqual([...leaves.map(String), rootCid.toString()].sort());
  });
});
