import {
  CopyObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  type S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { CarIndexer } from '@ipld/car/indexer';
import { CarReader } from '@ipld/car/reader';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { fixedSize } from 'ipfs-unixfs-importer/chunker';
import { CID } from 'multiformats/cid';
import * as raw from 'multiformats/codecs/raw';
import { sha256 as sha256Hasher } from 'multiformats/hashes/sha2';
import { describe, expect, it } from 'vitest';
import { localS3Bucket } from '../../support/s3-local.ts';
import { BlockCorruptError, BlockNotFoundError, S3Blockstore } from '#lib/storage/blockstore.ts';
import { CHUNK_BYTES, discardingStore, importContent } from '#lib/storage/cid.ts';
import { fileContent } from '#lib/storage/content.ts';
import { ShardedBlockstore } from '#lib/storage/shard-reader.ts';
import { ShardWriter } from '#lib/storage/shard-writer.ts';
import { DATA, dataKey, deleteShards, objectKey, SHARD_BYTES, type ShardIndex, shardIndexKey, shardKey } from '#lib/storage/shards.ts';

const BUCKET = 'shards-test';
const MiB = 1024 * 1024;
const local = localS3Bucket(BUCKET);

const objectBytes = async (key: string) => (await local.client.send(new GetObjectCommand({ Bucket: BUCKET, Key: key }))).Body!.transformToByteArray();
const keysUnder = async (prefix: string) =>
  ((await local.client.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: prefix }))).Contents ?? []).map((o) => o.Key!).sort();
const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
const cidOf = async (b: Uint8Array) => CID.createV1(raw.code, await sha256Hasher.digest(b));

/** `bytes` as a request brings them: pieces of 1 to 64 KiB (seeded, so a failure repeats). */
function* pieces(bytes: Uint8Array, seed = bytes.length) {
  let x = seed || 1;
  for (let at = 0; at < bytes.length; ) {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    const n = 1 + (x % 65536);
    yield bytes.subarray(at, at + n);
    at += n;
  }
}

async function* asAsync<T>(items: Iterable<T>): AsyncGenerator<T> {
  yield* items;
}

/**
 * Imports `bytes` into a fresh upload's shards, the way uploads do (the writer's chunker fills
 * each chunk in place) or through plain `put`s of copied blocks; the CID must be the hash-only
 * import's either way.
 */
async function stored(bytes: Uint8Array, inPlace = true) {
  const uploadId = randomUUID();
  const writer = new ShardWriter(local.client, BUCKET, uploadId);
  const { cid } = inPlace
    ? await importContent(pieces(bytes), writer, { chunker: writer.chunker(CHUNK_BYTES), blockWriteConcurrency: 1 })
    : await importContent([bytes], writer);
  const index = await writer.finish(cid);
  expect(cid.toString()).toBe((await importContent([bytes], discardingStore)).cid.toString());
  return { uploadId, cid, index, store: new ShardedBlockstore(local.client, BUCKET, uploadId, new S3Blockstore(local.client, BUCKET)) };
}

/**
 * Every object checked against the index: each CAR shard read by @ipld/car itself (each block
 * where the index says, hashing to its CID), and the data object (index v2) — exactly the file's
 * bytes, with the ETag and size the index recorded, each of its blocks hashing to its CID.
 */
async function expectObjectsAgreeWithIndex(uploadId: string, index: ShardIndex, bytes: Uint8Array) {
  expect(index.version).toBe(2);
  const seen = new Set<string>();
  for (let n = 1; n <= index.shards; n++) {
    const car = await objectBytes(shardKey(uploadId, n));
    expect(car.length).toBeLessThanOrEqual(SHARD_BYTES);
    const indexer = await CarIndexer.fromBytes(car);
    for await (const entry of indexer) {
      const at = index.blocks[entry.cid.toString()]!;
      expect(at).toEqual([n, entry.blockOffset, entry.blockLength]);
      const block = car.subarray(entry.blockOffset, entry.blockOffset + entry.blockLength);
      expect(Buffer.from(createHash('sha256').update(block).digest()).equals(Buffer.from(entry.cid.multihash.digest))).toBe(true);
      seen.add(entry.cid.toString());
    }
    const reader = await CarReader.fromBytes(car);
    expect((await reader.getRoots()).length).toBe(1);
  }
  if (index.data) {
    const data = await objectBytes(dataKey(uploadId));
    expect(sha256(data)).toBe(sha256(bytes));
    expect(index.data.size).toBe(bytes.length);
    expect((await local.client.send(new HeadObjectCommand({ Bucket: BUCKET, Key: dataKey(uploadId) }))).ETag).toBe(index.data.etag);
    for (const [cid, [n, offset, length]] of Object.entries(index.blocks)) {
      if (n !== DATA) continue;
      expect(
        Buffer.from(
          createHash('sha256')
            .update(data.subarray(offset, offset + length))
            .digest(),
        ).equals(Buffer.from(CID.parse(cid).multihash.digest)),
      ).toBe(true);
      seen.add(cid);
    }
  }
  expect([...seen].sort()).toEqual(Object.keys(index.blocks).sort());
}

const fileBack = async (cid: CID, store: ShardedBlockstore) => {
  const out: Uint8Array[] = [];
  for await (const c of fileContent(cid.toString(), store)) out.push(c);
  return Buffer.concat(out);
};

describe("ShardWriter, blocks in place (the upload chunker): the file's bytes as one data object", () => {
  it('a 20 MiB file: a multipart data object of 8 MiB parts holding exactly the file, the root in one CAR shard', async () => {
    const bytes = randomBytes(20 * MiB + 12_345);
    const { uploadId, cid, index, store } = await stored(bytes);
    expect(index.root).toBe(cid.toString());
    expect(index.shards).toBe(1);
    expect(index.data!.etag).toMatch(/^"[0-9a-f]{32}-3"$/); // three parts
    expect(Object.keys(index.blocks)).toHaveLength(22); // 21 raw leaves + the root
    expect(Object.values(index.blocks).filter(([n]) => n === DATA)).toHaveLength(21);
    expect(index.blocks[cid.toString()]![0]).toBe(1);
    expect(await keysUnder(`shards/${uploadId}/`)).toEqual([shardIndexKey(uploadId), dataKey(uploadId), shardKey(uploadId, 1)].sort());
    await expectObjectsAgreeWithIndex(uploadId, index, bytes);
    expect(sha256(await fileBack(cid, store))).toBe(sha256(bytes));
  });

  it("the next upload fills the part buffers the last one's answered parts left (no new 16 MiB per upload), each data object still exactly its own file, two at once too", async () => {
    const bodies = new Map<string, Set<ArrayBufferLike>>();
    const watching = (uploadId: string) =>
      ({
        send: (command: { constructor: { name: string }; input: { Body?: Uint8Array } }, ...rest: unknown[]) => {
          if (command.constructor.name === 'UploadPartCommand') bodies.get(uploadId)!.add(command.input.Body!.buffer);
          return (local.client.send as (...a: unknown[]) => Promise<unknown>)(command, ...rest);
        },
      }) as unknown as S3Client;
    const upload = async (bytes: Uint8Array) => {
      const uploadId = randomUUID();
      bodies.set(uploadId, new Set());
      const writer = new ShardWriter(watching(uploadId), BUCKET, uploadId);
      const { cid } = await importContent(pieces(bytes), writer, { chunker: writer.chunker(CHUNK_BYTES), blockWriteConcurrency: 1 });
      const index = await writer.finish(cid);
      await expectObjectsAgreeWithIndex(uploadId, index, bytes);
      return bodies.get(uploadId)!;
    };
    const first = await upload(randomBytes(20 * MiB + 3));
    const second = await upload(randomBytes(17 * MiB + 5));
    expect(first.size).toBe(2);
    expect([...second].every((b) => first.has(b))).toBe(true);
    // Two uploads at once never share a buffer, and each object holds its own bytes.
    const [a, b] = await Promise.all([upload(randomBytes(19 * MiB + 1)), upload(randomBytes(21 * MiB + 2))]);
    expect([...a].some((x) => b.has(x))).toBe(false);
  });

  it('bytes already in the bucket (a presigned upload) become the data object by a copy at the ETag they were read at; another ETag fails the import and leaves nothing', async () => {
    const { S3Pinning } = await import('#lib/storage/pinning-s3.ts');
    const adapter = new S3Pinning(new S3Blockstore(local.client, BUCKET), 'car', local.client, BUCKET);
    const bytes = randomBytes(9 * MiB + 7);
    const staged = `uploads/${randomUUID()}`;
    const put = await local.client.send(new PutObjectCommand({ Bucket: BUCKET, Key: staged, Body: bytes, ContentLength: bytes.length }));
    const uploadId = randomUUID();
    const added = await adapter.add(asAsync(pieces(bytes)), { uploadId, staged: { key: staged, etag: put.ETag! } });
    expect(added.cid).toBe((await importContent([bytes], discardingStore)).cid.toString());
    // A copy of a single-part object keeps its MD5 ETag; the index records it, and every leaf is a range of it.
    expect(added.ref.copy).toEqual({ key: dataKey(uploadId), etag: put.ETag });
    const index = JSON.parse(Buffer.from(await objectBytes(shardIndexKey(uploadId))).toString()) as ShardIndex;
    await expectObjectsAgreeWithIndex(uploadId, index, bytes);
    expect(sha256(await fileBack(CID.parse(added.cid), new ShardedBlockstore(local.client, BUCKET, uploadId, new S3Blockstore(local.client, BUCKET))))).toBe(
      sha256(bytes),
    );

    // The staged object is not the one that was read (another ETag): S3 refuses the copy (412), the import fails, nothing stays.
    const other = randomUUID();
    await expect(
      adapter.add(asAsync(pieces(bytes)), { uploadId: other, staged: { key: staged, etag: '"0123456789abcdef0123456789abcdef"' } }),
    ).rejects.toMatchObject({ code: 'PINNING_ERROR' });
    expect(await keysUnder(`shards/${other}/`)).toEqual([]);
  });

  it('keeps a repeated chunk where it is in the file (the data is the file) and indexes it once', async () => {
    const chunk = randomBytes(MiB);
    const bytes = Buffer.concat([chunk, chunk, chunk, randomBytes(777)]);
    const { uploadId, cid, index, store } = await stored(bytes);
    expect(Object.keys(index.blocks)).toHaveLength(3); // one distinct full leaf, the tail, the root
    await expectObjectsAgreeWithIndex(uploadId, index, bytes);
    expect(sha256(await fileBack(cid, store))).toBe(sha256(bytes));
  });

  // Sizes around the edges: a file of exactly one chunk (its CID is the raw leaf's: no CAR shard
  // at all), one byte over, a part's worth, and one part plus a little (two parts, the last small).
  it.each([1, 50, 16_000, MiB - 1, MiB, MiB + 1, 7 * MiB, 8 * MiB, 8 * MiB + 70, 16 * MiB])(
    'a %i-byte file: same CID as the plain import, objects agree with the index, bytes back',
    async (size) => {
      const bytes = randomBytes(size);
      const { uploadId, cid, index, store } = await stored(bytes);
      expect(index.shards).toBe(size <= MiB ? 0 : 1);
      expect(index.data!.etag.endsWith(size > 8 * MiB ? '-2"' : '"')).toBe(true);
      await expectObjectsAgreeWithIndex(uploadId, index, bytes);
      expect(sha256(await fileBack(cid, store))).toBe(sha256(bytes));
    },
  );

  it('handles an empty file (one zero-length raw block, no data object)', async () => {
    const { cid, store, index } = await stored(new Uint8Array(0));
    expect(index.data).toBeUndefined();
    expect((await fileBack(cid, store)).length).toBe(0);
  });
});

describe('ShardWriter, blocks copied (plain puts): every block in CAR shards', () => {
  it('packs a 20 MiB file into 8 MiB CAR shards numbered from 1, whose own framing agrees with the index', async () => {
    const bytes = randomBytes(20 * MiB + 12_345);
    const { uploadId, cid, index, store } = await stored(bytes, false);
    expect(index.shards).toBe(3);
    expect(index.data).toBeUndefined();
    expect(await keysUnder(`shards/${uploadId}/`)).toEqual([shardIndexKey(uploadId), ...[1, 2, 3].map((n) => shardKey(uploadId, n))].sort());
    await expectObjectsAgreeWithIndex(uploadId, index, bytes);
    expect(sha256(await fileBack(cid, store))).toBe(sha256(bytes));
  });

  it.each([1, 92, MiB, 8 * MiB + 70])('a %i-byte file: same CID as the plain import, bytes back', async (size) => {
    const bytes = randomBytes(size);
    const { uploadId, cid, index, store } = await stored(bytes, false);
    await expectObjectsAgreeWithIndex(uploadId, index, bytes);
    expect(sha256(await fileBack(cid, store))).toBe(sha256(bytes));
  });
});

describe('ShardedBlockstore, index version 1 (uploads before the data object)', () => {
  it('reads CAR shards numbered from 0 as before', async () => {
    const bytes = randomBytes(9 * MiB + 3);
    const { uploadId, index, cid } = await stored(bytes, false);
    // The same blocks as version 1 had them: shard n+1 as n.car, the index's numbers one lower.
    for (let n = 1; n <= index.shards; n++) {
      await local.client.send(
        new CopyObjectCommand({ Bucket: BUCKET, Key: `shards/${uploadId}/v1/${n - 1}.car`, CopySource: `${BUCKET}/${shardKey(uploadId, n)}` }),
      );
    }
    const v1: ShardIndex = {
      version: 1,
      root: index.root,
      shards: index.shards,
      blocks: Object.fromEntries(Object.entries(index.blocks).map(([c, [n, o, l]]) => [c, [n - 1, o, l]])),
    };
    const body = JSON.stringify(v1);
    await local.client.send(new PutObjectCommand({ Bucket: BUCKET, Key: shardIndexKey(`${uploadId}/v1`), Body: body }));
    const old = new ShardedBlockstore(local.client, BUCKET, `${uploadId}/v1`, new S3Blockstore(local.client, BUCKET));
    expect(sha256(await fileBack(cid, old))).toBe(sha256(bytes));
    expect(objectKey('u', 1, 0)).toBe('shards/u/0.car');
    expect(objectKey('u', 2, 0)).toBe('shards/u/data');
  });
});

describe('ShardWriter chunker', () => {
  it('cuts the same chunks as the fixed-size chunker, whatever pieces the bytes come in (so the same CIDs)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ maxLength: 5000 }),
        fc.array(fc.integer({ min: 1, max: 700 }), { minLength: 1, maxLength: 20 }),
        fc.integer({ min: 1, max: 900 }),
        async (bytes, cuts, chunkSize) => {
          const split = function* () {
            for (let at = 0, i = 0; at < bytes.length; i++) {
              const n = cuts[i % cuts.length]!;
              yield bytes.subarray(at, at + n);
              at += n;
            }
          };
          const writer = new ShardWriter(local.client, BUCKET, randomUUID());
          const mine: string[] = [];
          for await (const chunk of writer.chunker(chunkSize)(split())) {
            mine.push(Buffer.from(chunk).toString('hex'));
            await writer.put(await cidOf(chunk), chunk); // each chunk put before the next is asked for
          }
          const theirs: string[] = [];
          for await (const chunk of fixedSize({ chunkSize })(
            (async function* () {
              yield* split();
            })(),
          ))
            theirs.push(Buffer.from(chunk.subarray()).toString('hex'));
          expect(mine).toEqual(theirs);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('refuses to hand out a chunk before the previous one was put', async () => {
    const writer = new ShardWriter(local.client, BUCKET, randomUUID());
    const chunks = writer.chunker(10)(
      (async function* () {
        yield new Uint8Array(25);
      })(),
    );
    await chunks.next();
    await expect(chunks.next()).rejects.toThrow(/before the previous one was put/);
  });
});

describe('ShardWriter abort', () => {
  it('abort removes every object the upload wrote', async () => {
    const uploadId = randomUUID();
    const writer = new ShardWriter(local.client, BUCKET, uploadId);
    await importContent([randomBytes(9 * MiB)], writer).catch(() => undefined);
    await writer.abort();
    expect(await keysUnder(`shards/${uploadId}/`)).toEqual([]);
  });

  it("a part S3 refuses fails the import (it does not wait for the part's buffer forever), and abort cleans up", async () => {
    const uploadId = randomUUID();
    const failing = {
      send: async (command: { constructor: { name: string } }, ...rest: unknown[]) => {
        // Every part refused, after a while: both part buffers are out when the refusals come.
        if (command.constructor.name === 'UploadPartCommand') {
          await new Promise((r) => setTimeout(r, 150));
          throw Object.assign(new Error('slow down'), { name: 'SlowDown' });
        }
        return (local.client.send as (...a: unknown[]) => Promise<unknown>)(command, ...rest);
      },
    } as unknown as S3Client;
    const writer = new ShardWriter(failing, BUCKET, uploadId);
    await expect(importContent(pieces(randomBytes(40 * MiB)), writer, { chunker: writer.chunker(CHUNK_BYTES), blockWriteConcurrency: 1 })).rejects.toThrow(
      'slow down',
    );
    await writer.abort();
    expect(await keysUnder(`shards/${uploadId}/`)).toEqual([]);
  });

  it.each(['index', 'complete-answer'])('a failure after the data object was completed (%s lost): abort still removes every object', async (lost) => {
    const uploadId = randomUUID();
    const failing = {
      send: async (command: { constructor: { name: string }; input: { Key?: string } }, ...rest: unknown[]) => {
        const name = command.constructor.name;
        if (lost === 'index' && name === 'PutObjectCommand' && command.input.Key === shardIndexKey(uploadId))
          throw Object.assign(new Error('internal error'), { name: 'InternalError' });
        const out = await (local.client.send as (...a: unknown[]) => Promise<unknown>)(command, ...rest);
        // S3 did the work, the answer never came.
        if (lost === 'complete-answer' && name === 'CompleteMultipartUploadCommand') throw Object.assign(new Error('socket hang up'), { name: 'TimeoutError' });
        return out;
      },
    } as unknown as S3Client;
    const writer = new ShardWriter(failing, BUCKET, uploadId);
    const { cid } = await importContent(pieces(randomBytes(20 * MiB)), writer, { chunker: writer.chunker(CHUNK_BYTES), blockWriteConcurrency: 1 });
    await expect(writer.finish(cid)).rejects.toThrow();
    expect(await keysUnder(`shards/${uploadId}/`)).toContain(dataKey(uploadId));
    await writer.abort();
    expect(await keysUnder(`shards/${uploadId}/`)).toEqual([]);
  });

  it('an import that breaks off after parts were sent: abort removes the objects and aborts the multipart upload', async () => {
    const uploadId = randomUUID();
    const started: string[] = [];
    // The real client, watched: the multipart upload's id is noted as S3 answers it.
    const watched = {
      send: async (command: { constructor: { name: string } }, ...rest: unknown[]) => {
        const out = await (local.client.send as (...a: unknown[]) => Promise<{ UploadId?: string }>)(command, ...rest);
        if (command.constructor.name === 'CreateMultipartUploadCommand') started.push(out.UploadId!);
        return out;
      },
    } as unknown as S3Client;
    const writer = new ShardWriter(watched, BUCKET, uploadId);
    const source = async function* () {
      yield* pieces(randomBytes(17 * MiB));
      throw new Error('the client went away');
    };
    await expect(importContent(source(), writer, { chunker: writer.chunker(CHUNK_BYTES), blockWriteConcurrency: 1 })).rejects.toThrow('the client went away');
    await writer.abort();
    expect(started).toHaveLength(1);
    expect(await keysUnder(`shards/${uploadId}/`)).toEqual([]);
    await expect(
      local.client.send(new UploadPartCommand({ Bucket: BUCKET, Key: dataKey(uploadId), UploadId: started[0], PartNumber: 9, Body: new Uint8Array(1) })),
    ).rejects.toMatchObject({ name: 'NoSuchUpload' });
  });
});

describe('ShardedBlockstore', () => {
  it('reads single blocks by range and runs of blocks in order, each checked against its CID', async () => {
    const bytes = randomBytes(10 * MiB + 5);
    const { index, store } = await stored(bytes);
    const leaves = Object.keys(index.blocks)
      .filter((c) => c.startsWith('bafkrei'))
      .map((c) => CID.parse(c));
    const one = await store.getBytes(leaves[3]!);
    expect(sha256(one)).toBe(sha256(bytes.subarray(3 * MiB, 4 * MiB)));
    const got: string[] = [];
    for await (const { cid, length, parts } of store.blocks(leaves)) {
      const b = Buffer.concat(parts);
      expect(b.length).toBe(length);
      expect(Buffer.from(createHash('sha256').update(b).digest()).equals(Buffer.from(cid.multihash.digest))).toBe(true);
      got.push(cid.toString());
    }
    expect(got).toEqual(leaves.map(String));
    expect(await store.has(leaves[0]!)).toBe(true);
  });

  it('stops at a corrupted block: BlockCorruptError, and the blocks after it are never read', async () => {
    const bytes = randomBytes(3 * MiB);
    const { uploadId, index, store, cid } = await stored(bytes);
    const leaves = Object.keys(index.blocks).filter((c) => c !== cid.toString());
    const [object, offset] = index.blocks[leaves[1]!]!;
    const key = objectKey(uploadId, index.version, object);
    const content = await objectBytes(key);
    content[offset + 10]! ^= 1;
    await local.client.send(new PutObjectCommand({ Bucket: BUCKET, Key: key, Body: content }));
    const fresh = new ShardedBlockstore(local.client, BUCKET, uploadId, new S3Blockstore(local.client, BUCKET));
    const out: Uint8Array[] = [];
    await expect(
      (async () => {
        for await (const c of fileContent(cid.toString(), fresh)) out.push(c);
      })(),
    ).rejects.toBeInstanceOf(BlockCorruptError);
    expect(Buffer.concat(out).length).toBe(MiB); // the first leaf only
    expect(sha256(Buffer.concat(out))).toBe(sha256(bytes.subarray(0, MiB)));
    await expect(store.getBytes(CID.parse(leaves[1]!))).rejects.toBeInstanceOf(BlockCorruptError);
  });

  it('falls back to the per-block layout for a block the index does not list; a missing index is BlockNotFound', async () => {
    const legacy = new S3Blockstore(local.client, BUCKET);
    const old = randomBytes(5000);
    const { cid: oldCid } = await importContent([old], legacy);
    const { store, uploadId } = await stored(randomBytes(100));
    expect(sha256(await store.getBytes(oldCid))).toBe(sha256(old));
    await deleteShards(local.client, BUCKET, uploadId);
    const gone = new ShardedBlockstore(local.client, BUCKET, uploadId, legacy);
    await expect(gone.getBytes(oldCid)).rejects.toBeInstanceOf(BlockNotFoundError);
  });
});
