import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  type S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { close, createWriter, headerLength } from '@ipld/car/buffer-writer';
import { CID } from 'multiformats/cid';
import * as z from 'zod';
import { BlockNotFoundError, checkBlock, checkBlockParts, isMissing, type ListingFrom, S3Blockstore } from './blockstore.ts';
import { s3BodyChunks } from './streams.ts';

/**
 * The shard layout of the s3 adapter: an upload's objects under `shards/<uploadId>/`, and an
 * index object `shards/<uploadId>/index.json` from block CID to (object, offset, length) of the
 * block's bytes.
 *
 * Version 2 (written since the data object): the file's bytes, exactly as uploaded, are one
 * object `data` (location 0), written by a multipart upload in 8 MiB parts as the import cuts
 * them; with raw leaves every leaf block is a range of it. The DAG's other blocks (its inner
 * nodes: one for a file under 1 GB) are in CARv1 shards `1.car`, `2.car` … (roots: their first
 * block). So the upload writes the file's bytes once and no more requests than parts, the data
 * object is the download copy large files are redirected to (its ETag, recorded as written, is
 * checked instead of reading it again), and a file is read back with one ranged GET. The CIDs are
 * the import's as ever, and the trustless gateway builds its CAR from the blocks.
 *
 * Version 1 (uploads before it; still read): every block in CARv1 shards `0.car`, `1.car` …
 *
 * Why an index object and not DynamoDB items: every reader starts from a pin, whose upload names
 * the index, and wants all of a file's locations at once — one GET of a few KB; the index lives
 * and dies with its objects (written last, deleted with them), and it costs no per-block writes.
 * Shards belong to one upload and are never shared, so no per-block reference counts are needed:
 * the files are ciphertext, so identical 1 MiB chunks across files are not worth sharing.
 */
export const SHARD_BYTES = 8 * 1024 * 1024;
/** Blocks this close together in an object are read with one GET (the gap is read and dropped). */
const MAX_GAP = 64 * 1024;
export const CAR_CONTENT_TYPE = 'application/vnd.ipld.car';
export const DATA_CONTENT_TYPE = 'application/octet-stream';

export const shardPrefix = (uploadId: string) => `shards/${uploadId}/`;
export const shardKey = (uploadId: string, n: number) => `${shardPrefix(uploadId)}${n}.car`;
export const shardIndexKey = (uploadId: string) => `${shardPrefix(uploadId)}index.json`;
/** Version 2: the file's bytes as uploaded. */
export const dataKey = (uploadId: string) => `${shardPrefix(uploadId)}data`;
/** Version 2: the location of a block in the data object. */
export const DATA = 0;

/** [object (v2: 0 the data object, n the CAR shard n.car; v1: the CAR shard n.car), offset of the block's bytes in it, their length]. */
const locationSchema = z.tuple([z.number().int().nonnegative(), z.number().int().nonnegative(), z.number().int().nonnegative()]);
export type BlockLocation = z.infer<typeof locationSchema>;
const shardIndexSchema = z.object({
  version: z.union([z.literal(1), z.literal(2)]),
  root: z.string(),
  /** How many CAR shards (v2: numbered from 1; v1: from 0). */
  shards: z.number().int().nonnegative(),
  /** v2: the data object's size and its ETag as written (absent when no chunk was stored, e.g. an empty file). */
  data: z.object({ size: z.number().int().nonnegative(), etag: z.string() }).optional(),
  blocks: z.record(z.string(), locationSchema),
});
export type ShardIndex = z.infer<typeof shardIndexSchema>;

/** The key of the object a location names. */
export const objectKey = (uploadId: string, version: ShardIndex['version'], n: number) => (version === 2 && n === DATA ? dataKey(uploadId) : shardKey(uploadId, n));

const varintLength = (n: number) => (n < 0x80 ? 1 : n < 0x4000 ? 2 : n < 0x200000 ? 3 : n < 0x10000000 ? 4 : 5);

/** Writes a CAR section's header (varint of CID + data length, then the CID) at `at`; returns where the data goes. */
function writeSectionHeader(buffer: Uint8Array, at: number, cid: CID, length: number): number {
  let n = cid.bytes.length + length;
  while (n >= 0x80) {
    buffer[at++] = (n & 0x7f) | 0x80;
    n >>>= 7;
  }
  buffer[at++] = n;
  buffer.set(cid.bytes, at);
  return at + cid.bytes.length;
}

const sectionLength = (cid: CID, length: number) => varintLength(cid.bytes.length + length) + cid.bytes.length + length;
const carHeader = (root: CID) => close(createWriter(new ArrayBuffer(headerLength({ roots: [root] })), { roots: [root] }));

/** S3's smallest part (all but the last), and the part size aimed at. */
const MIN_PART_BYTES = 5 * 1024 * 1024;
const PART_BYTES = 8 * 1024 * 1024;
/** One part filling while one is on its way to S3: an upload's data buffers are bounded at 16 MiB. */
const PART_BUFFERS = 2;
/** Parts hold whole chunks (a chunk is a view of one part), and are at least S3's minimum. */
const partBytesFor = (chunkSize: number) => chunkSize * Math.max(Math.ceil(MIN_PART_BYTES / chunkSize), Math.floor(PART_BYTES / chunkSize));

/** `buffer`'s first `used` bytes in a buffer twice its size, at most `max` (chunks already put are views of the old one: done with). */
function grown(buffer: Uint8Array<ArrayBuffer>, used: number, max: number): Uint8Array<ArrayBuffer> {
  const next = new Uint8Array(Math.min(max, buffer.length * 2));
  next.set(buffer.subarray(0, used));
  return next;
}

/**
 * The import's block store during an upload (index v2):
 *
 * - The file's bytes — the chunks the import's `chunker` hands out — go into the data object, in
 *   file order, as a multipart upload of 8 MiB parts (one filling while one is on its way; the
 *   import waits when both buffers are taken, so memory stays at two parts whatever the size).
 *   A chunk is a view of the part it will be sent in: the bytes are copied once, from the request
 *   into their place. A file that fits one part is one PUT.
 * - Every other block (the DAG's inner nodes; every block when no chunker is used) goes into CAR
 *   shards of up to SHARD_BYTES, numbered from 1 — for a file under 100 MB, one small shard.
 *
 * The import must put each chunk before it asks for the next (`blockWriteConcurrency: 1`): a
 * chunk's place is the data object's next bytes.
 */
export class ShardWriter {
  readonly locations = new Map<string, BlockLocation>();
  private failure: unknown;
  /** Appends run one at a time, in the order the import calls `put`. */
  private tail: Promise<unknown> = Promise.resolve();
  private readonly sending = new Set<Promise<void>>();

  // CAR shards: blocks waiting for theirs (their locations are set when it is sealed).
  private pending: { cid: CID; bytes: Uint8Array }[] = [];
  private readonly pendingCids = new Set<string>();
  private pendingBytes = 0;
  private count = 0;
  private carSent?: Promise<void>;

  // The data object.
  private partSize = 0;
  private part?: Uint8Array<ArrayBuffer>;
  private partAt = 0;
  /** Bytes of the data in parts already sealed. */
  private sealedBytes = 0;
  private readonly freeParts: Uint8Array<ArrayBuffer>[] = [];
  private partsAllocated = 0;
  private multipart?: Promise<string>;
  private readonly parts: Promise<{ ETag: string; PartNumber: number }>[] = [];
  private reserved?: { view: Uint8Array; offset: number };
  /** The data object's multipart upload is complete: there is nothing left to abort. */
  private completed = false;

  /** Bytes of the file chunked so far, when the data object is written by someone else (`copied`). */
  private dataBytes = 0;

  constructor(
    private readonly client: S3Client,
    private readonly bucket: string,
    readonly uploadId: string,
    /**
     * The data object already being written elsewhere (a server-side copy of the same bytes,
     * pinning-s3.ts): then the writer only cuts the chunks and records where they are, and the
     * index takes the copy's ETag. Its failure fails the upload.
     */
    private readonly copied?: Promise<{ etag: string }>,
  ) {
    copied?.catch(() => undefined); // awaited in finish/abort; never an unhandled rejection meanwhile
  }

  /** How many CAR shards were written (`1.car` … `<shards>.car`). */
  get shards(): number {
    return this.count;
  }

  put(cid: CID, bytes: Uint8Array): Promise<CID> {
    const appended = this.tail.then(() => this.append(cid, bytes));
    this.tail = appended.catch(() => undefined);
    return appended.then(() => cid);
  }

  /**
   * The importer's `chunker` (ImporterOptions): cuts the file into `chunkSize` chunks as the
   * fixed-size chunker does (the same chunks, so the same CIDs), each one filled in place in the
   * data object's part.
   */
  chunker(chunkSize: number): (source: AsyncIterable<Uint8Array> | Iterable<Uint8Array>) => AsyncGenerator<Uint8Array> {
    return (source) => this.chunks(source, chunkSize);
  }

  private async *chunks(source: AsyncIterable<Uint8Array> | Iterable<Uint8Array>, chunkSize: number): AsyncGenerator<Uint8Array> {
    let view: Uint8Array | undefined;
    let filled = 0;
    let emitted = false;
    for await (const piece of source) {
      for (let at = 0; at < piece.length; ) {
        view ??= await this.reserve(chunkSize);
        const n = Math.min(chunkSize - filled, piece.length - at);
        view.set(piece.subarray(at, at + n), filled);
        filled += n;
        at += n;
        if (filled === chunkSize) {
          const chunk = view;
          view = undefined;
          filled = 0;
          emitted = true;
          yield chunk;
        }
      }
    }
    if (view && filled) yield view.subarray(0, filled);
    else if (!emitted) yield new Uint8Array(0); // an empty file is one empty block, as the fixed-size chunker has it
  }

  private async reserve(chunkSize: number): Promise<Uint8Array> {
    await this.tail;
    if (this.failure) throw this.failure;
    if (this.reserved) throw new Error('ShardWriter: a chunk was requested before the previous one was put (blockWriteConcurrency must be 1)');
    if (this.copied) {
      // The data object is the copy's: a chunk is only hashed, so it needs no part to live in.
      const view = new Uint8Array(chunkSize);
      this.reserved = { view, offset: this.dataBytes };
      return view;
    }
    const size = partBytesFor(chunkSize);
    if (this.partSize && this.partSize !== size) throw new Error('ShardWriter: one chunk size per upload');
    this.partSize = size;
    if (this.part && this.partAt + chunkSize > this.part.length) {
      if (this.part.length < this.partSize) this.part = grown(this.part, this.partAt, this.partSize);
      else this.sealPart();
    }
    // An upload's first part starts at one chunk and grows: a small file never takes a whole part's memory.
    this.part ??= await this.partBuffer(this.sealedBytes ? this.partSize : Math.min(chunkSize, this.partSize));
    const view = this.part.subarray(this.partAt, this.partAt + chunkSize);
    this.reserved = { view, offset: this.sealedBytes + this.partAt };
    return view;
  }

  private async append(cid: CID, bytes: Uint8Array): Promise<void> {
    if (this.failure) throw this.failure;
    const key = cid.toString();
    const r = this.reserved;
    if (r && bytes.buffer === r.view.buffer && bytes.byteOffset === r.view.byteOffset) {
      // A chunk, put: its bytes are in place and stay (the data is the file, a repeated chunk
      // included); the block is read from its first place.
      this.reserved = undefined;
      if (this.copied) this.dataBytes += bytes.length;
      else this.partAt += bytes.length;
      if (!this.locations.has(key) && !this.pendingCids.has(key)) this.locations.set(key, [DATA, r.offset, bytes.length]);
      return;
    }
    if (this.locations.has(key) || this.pendingCids.has(key)) return; // a block repeated within the file
    const section = sectionLength(cid, bytes.length);
    if (this.pending.length && this.pendingBytes + section > SHARD_BYTES) await this.sealCar();
    if (!this.pending.length) this.pendingBytes = carHeader(cid).length;
    this.pending.push({ cid, bytes });
    this.pendingCids.add(key);
    this.pendingBytes += section;
  }

  /** The waiting blocks as one CAR shard (roots: its first block), sent while the next fills; one on its way at a time. */
  private async sealCar(): Promise<void> {
    await this.carSent;
    if (this.failure) throw this.failure;
    const blocks = this.pending;
    this.pending = [];
    this.pendingCids.clear();
    const n = ++this.count;
    const body = new Uint8Array(this.pendingBytes);
    const header = carHeader(blocks[0]!.cid);
    body.set(header, 0);
    let at = header.length;
    for (const { cid, bytes } of blocks) {
      const data = writeSectionHeader(body, at, cid, bytes.length);
      body.set(bytes, data);
      this.locations.set(cid.toString(), [n, data, bytes.length]);
      at = data + bytes.length;
    }
    this.carSent = this.track(this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key: shardKey(this.uploadId, n), Body: body, ContentLength: body.length, ContentType: CAR_CONTENT_TYPE })));
  }

  private async partBuffer(size: number): Promise<Uint8Array<ArrayBuffer>> {
    while (!this.freeParts.length && this.partsAllocated >= PART_BUFFERS) {
      // A failed part never gives its buffer back: stop waiting for one.
      if (this.failure) throw this.failure;
      await Promise.race(this.sending);
    }
    if (this.failure) throw this.failure;
    return this.freeParts.pop() ?? (this.partsAllocated++, new Uint8Array(size));
  }

  /** Sends the part filling (the multipart upload starts with the first); its buffer is reused once S3 has it. */
  private sealPart(): void {
    const buffer = this.part!;
    const size = this.partAt;
    this.part = undefined;
    this.partAt = 0;
    this.sealedBytes += size;
    const Key = dataKey(this.uploadId);
    this.multipart ??= this.client.send(new CreateMultipartUploadCommand({ Bucket: this.bucket, Key, ContentType: DATA_CONTENT_TYPE })).then((o) => o.UploadId!);
    const PartNumber = this.parts.length + 1;
    const sent = this.multipart.then(async (UploadId) => {
      const out = await this.client.send(new UploadPartCommand({ Bucket: this.bucket, Key, UploadId, PartNumber, Body: buffer.subarray(0, size), ContentLength: size }));
      return { ETag: out.ETag!, PartNumber };
    });
    this.parts.push(sent);
    void this.track(sent.then(() => void this.freeParts.push(buffer)));
  }

  /** Keeps `p` among the requests under way; its failure fails the upload (and is handled). */
  private track(p: Promise<unknown>): Promise<void> {
    const tracked: Promise<void> = p.then(
      () => undefined,
      (e: unknown) => void (this.failure ??= e),
    );
    this.sending.add(tracked);
    void tracked.finally(() => this.sending.delete(tracked));
    return tracked;
  }

  /** After the import: the data object completed, the last CAR shard, then the index (its presence means the upload's objects are complete). */
  async finish(root: CID): Promise<ShardIndex> {
    await this.tail;
    if (this.failure) throw this.failure;
    if (this.reserved) throw new Error('ShardWriter: the import ended with a chunk it never put');
    if (this.pending.length) await this.sealCar();
    const data = this.copied ? { size: this.dataBytes, etag: (await this.copied).etag } : this.part || this.multipart ? await this.finishData() : undefined;
    await Promise.all([...this.sending]);
    if (this.failure) throw this.failure;
    const index: ShardIndex = { version: 2, root: root.toString(), shards: this.count, ...(data ? { data } : {}), blocks: Object.fromEntries(this.locations) };
    const body = JSON.stringify(index);
    await this.client.send(
      new PutObjectCommand({ Bucket: this.bucket, Key: shardIndexKey(this.uploadId), Body: body, ContentLength: Buffer.byteLength(body), ContentType: 'application/json' }),
    );
    return index;
  }

  private async finishData(): Promise<{ size: number; etag: string }> {
    const size = this.sealedBytes + this.partAt;
    const Key = dataKey(this.uploadId);
    if (!this.multipart) {
      // All of it in one part: one PUT.
      const body = this.part!.subarray(0, this.partAt);
      const out = await this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key, Body: body, ContentLength: body.length, ContentType: DATA_CONTENT_TYPE }));
      return { size, etag: out.ETag! };
    }
    if (this.partAt) this.sealPart();
    const UploadId = await this.multipart;
    const Parts = await Promise.all(this.parts);
    const out = await this.client.send(new CompleteMultipartUploadCommand({ Bucket: this.bucket, Key, UploadId, MultipartUpload: { Parts } }));
    this.completed = true;
    return { size, etag: out.ETag! };
  }

  /**
   * After a failed import: waits for the requests under way, then deletes whatever this upload
   * wrote — an unfinished data object's parts (AbortMultipartUpload), and every object, whether
   * or not the abort could be sent.
   */
  async abort(): Promise<void> {
    await this.tail;
    await Promise.all([...this.sending]);
    await this.copied?.catch(() => undefined); // a copy that lands after the delete would stay
    try {
      const UploadId = await this.multipart?.catch(() => undefined);
      if (UploadId && !this.completed) {
        await this.client.send(new AbortMultipartUploadCommand({ Bucket: this.bucket, Key: dataKey(this.uploadId), UploadId })).catch((e: unknown) => {
          // Completed after all (its answer lost): the object goes below.
          if ((e as { name?: string }).name !== 'NoSuchUpload') throw e;
        });
      }
    } finally {
      await deleteShards(this.client, this.bucket, this.uploadId);
    }
  }
}

/** Deletes every object of an upload's shards (its index included). */
export async function deleteShards(client: S3Client, bucket: string, uploadId: string): Promise<void> {
  let token: string | undefined;
  do {
    const out = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: shardPrefix(uploadId), ContinuationToken: token }));
    const keys = (out.Contents ?? []).flatMap((o) => (o.Key ? [{ Key: o.Key }] : []));
    if (keys.length) await client.send(new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: keys, Quiet: true } }));
    token = out.IsTruncated ? out.NextContinuationToken : undefined;
  } while (token);
}

/** The upload ids that have shards, a page at a time (the sweeper). */
export async function* shardUploadPages(client: S3Client, bucket: string, from: ListingFrom = {}): AsyncGenerator<string[]> {
  let token: string | undefined;
  do {
    const out = await client.send(
      new ListObjectsV2Command({
        Bucket: bucket,
        Prefix: 'shards/',
        Delimiter: '/',
        ContinuationToken: token,
        // After every key of `shards/<after>/`: '0' is the character after '/'.
        ...(from.after && !token ? { StartAfter: `shards/${from.after}0` } : {}),
        MaxKeys: from.pageSize,
      }),
    );
    yield (out.CommonPrefixes ?? []).flatMap((p) => (p.Prefix ? [p.Prefix.slice('shards/'.length, -1)] : []));
    token = out.IsTruncated ? out.NextContinuationToken : undefined;
  } while (token);
}

/** A block checked against its CID, in the pieces it was read in. */
export interface StoredBlock {
  cid: CID;
  length: number;
  parts: Uint8Array[];
}

interface Run {
  /** The object's number in the index. */
  shard: number;
  start: number;
  end: number;
  blocks: { cid: CID; offset: number; length: number }[];
}

/**
 * Reads one upload's blocks from its objects (the data object, the CAR shards): `getBytes` by a ranged GET of the block alone,
 * `blocks` by ranged GETs that cover many blocks at once. Every block is checked against its CID
 * before it is handed on. A block the index does not list is looked for in the per-block layout
 * (`blocks/<cid>`, written before shards existed).
 */
export class ShardedBlockstore {
  private index?: Promise<ShardIndex>;

  constructor(
    private readonly client: S3Client,
    private readonly bucket: string,
    readonly uploadId: string,
    private readonly legacy: S3Blockstore,
  ) {}

  loadIndex(): Promise<ShardIndex> {
    this.index ??= this.readIndex();
    this.index.catch(() => (this.index = undefined)); // a failed read is tried again next time
    return this.index;
  }

  private async readIndex(): Promise<ShardIndex> {
    try {
      const out = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: shardIndexKey(this.uploadId) }));
      return shardIndexSchema.parse(JSON.parse(await out.Body!.transformToString()));
    } catch (e) {
      if (isMissing(e)) throw new BlockNotFoundError(`index of upload ${this.uploadId}`);
      throw e;
    }
  }

  async has(cid: CID | string): Promise<boolean> {
    return cid.toString() in (await this.loadIndex()).blocks || this.legacy.has(cid);
  }

  async *get(cid: CID): AsyncGenerator<Uint8Array> {
    yield await this.getBytes(cid);
  }

  async getBytes(cid: CID): Promise<Uint8Array> {
    const index = await this.loadIndex();
    const at = index.blocks[cid.toString()];
    if (!at) return this.legacy.getBytes(cid);
    const [object, offset, length] = at;
    if (!length) return checkBlock(cid, new Uint8Array(0));
    const out = await this.range(objectKey(this.uploadId, index.version, object), offset, offset + length);
    const bytes = await out.Body!.transformToByteArray();
    if (bytes.length !== length) throw new BlockNotFoundError(cid.toString());
    return checkBlock(cid, bytes);
  }

  private async range(key: string, start: number, end: number) {
    try {
      return await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key, Range: `bytes=${start}-${end - 1}` }));
    } catch (e) {
      if (isMissing(e)) throw new BlockNotFoundError(key);
      throw e;
    }
  }

  /**
   * The blocks `cids`, in that order, each checked before it is yielded: neighbours in a shard
   * come from one ranged GET, and the next range is requested while this one is read. A block
   * comes as the pieces the response brought (`parts`, in order), not copied into one buffer.
   */
  async *blocks(cids: readonly CID[]): AsyncGenerator<StoredBlock> {
    const index = await this.loadIndex();
    const runs: (Run | CID)[] = [];
    for (const cid of cids) {
      const at = index.blocks[cid.toString()];
      if (!at) {
        runs.push(cid);
        continue;
      }
      const [shard, offset, length] = at;
      const last = runs.at(-1);
      if (last && !(last instanceof CID) && last.shard === shard && offset >= last.end && offset - last.end <= MAX_GAP) {
        last.blocks.push({ cid, offset, length });
        last.end = offset + length;
      } else runs.push({ shard, start: offset, end: offset + length, blocks: [{ cid, offset, length }] });
    }
    const request = (r: Run | CID | undefined) => {
      if (!r || r instanceof CID || r.end === r.start) return undefined;
      const p = this.range(objectKey(this.uploadId, index.version, r.shard), r.start, r.end);
      p.catch(() => undefined); // awaited below; a read-ahead that fails must not go unhandled
      return p;
    };
    let next = request(runs[0]);
    try {
      for (let i = 0; i < runs.length; i++) {
        const run = runs[i]!;
        const current = next;
        next = request(runs[i + 1]);
        if (run instanceof CID) {
          const bytes = await this.legacy.getBytes(run);
          yield { cid: run, length: bytes.length, parts: [bytes] };
        } else yield* readRun(run, current && (await current).Body);
      }
    } finally {
      // Stopped early (a bad block, the reader gone): drop the range already requested.
      next?.then((o) => (o.Body as { destroy?: () => void } | undefined)?.destroy?.(), () => undefined);
    }
  }
}

/** Cuts a run's blocks out of its ranged body, checking each against its CID. */
async function* readRun(run: Run, body: Parameters<typeof s3BodyChunks>[0] | undefined): AsyncGenerator<StoredBlock> {
  let pos = run.start;
  let b = 0;
  let parts: Uint8Array[] = [];
  let have = 0;
  const done = function* (): Generator<StoredBlock> {
    // Zero-length blocks take no bytes: they are complete as soon as their turn comes.
    while (b < run.blocks.length && run.blocks[b]!.length === 0) {
      const { cid } = run.blocks[b++]!;
      checkBlockParts(cid, []);
      yield { cid, length: 0, parts: [] };
    }
  };
  yield* done();
  if (body) {
    for await (let chunk of s3BodyChunks(body)) {
      while (chunk.length && b < run.blocks.length) {
        const block = run.blocks[b]!;
        if (pos < block.offset) {
          const skip = Math.min(block.offset - pos, chunk.length);
          pos += skip;
          chunk = chunk.subarray(skip);
          continue;
        }
        const take = Math.min(block.length - have, chunk.length);
        parts.push(chunk.subarray(0, take));
        have += take;
        pos += take;
        chunk = chunk.subarray(take);
        if (have === block.length) {
          checkBlockParts(block.cid, parts);
          yield { cid: block.cid, length: have, parts };
          parts = [];
          have = 0;
          b++;
          yield* done();
        }
      }
    }
  }
  if (b < run.blocks.length) throw new BlockNotFoundError(run.blocks[b]!.cid.toString()); // the shard is shorter than its index says
}
