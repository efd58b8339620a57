import { DeleteObjectsCommand, GetObjectCommand, ListObjectsV2Command, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { close, createWriter, estimateHeaderLength, headerLength } from '@ipld/car/buffer-writer';
import { CID } from 'multiformats/cid';
import * as z from 'zod';
import { BlockNotFoundError, checkBlock, checkBlockParts, isMissing, S3Blockstore } from './blockstore.ts';
import { s3BodyChunks } from './streams.ts';

/**
 * The CAR layout of the s3 adapter: an upload's blocks packed, as the import produces them, into
 * CARv1 shards `shards/<uploadId>/<n>.car` (SHARD_BYTES each, the last one smaller), with an
 * index object `shards/<uploadId>/index.json` from block CID to (shard, offset, length) of the
 * block's bytes. A 100 MB upload is 13 PUTs instead of 100, and a download reads a shard's
 * blocks with one ranged GET. Each shard is a valid CAR (roots: its first block), so the index
 * can always be rebuilt from the shards alone (`@ipld/car/indexer`).
 *
 * Why an index object and not DynamoDB items: every reader starts from a pin, whose upload names
 * the index, and wants all of a file's locations at once — one GET of a few KB; the index lives
 * and dies with its shards (written last, deleted with them), and it costs no per-block writes.
 * Shards belong to one upload and are never shared, so no per-block reference counts are needed:
 * the files are ciphertext, so identical 1 MiB chunks across files are not worth sharing.
 */
export const SHARD_BYTES = 8 * 1024 * 1024;
/** One shard filling while one is on its way to S3: the upload's buffer is bounded at 16 MiB. */
const SHARD_BUFFERS = 2;
/** Blocks this close together in a shard are read with one GET (the gap is read and dropped). */
const MAX_GAP = 64 * 1024;
export const CAR_CONTENT_TYPE = 'application/vnd.ipld.car';

export const shardPrefix = (uploadId: string) => `shards/${uploadId}/`;
export const shardKey = (uploadId: string, n: number) => `${shardPrefix(uploadId)}${n}.car`;
export const shardIndexKey = (uploadId: string) => `${shardPrefix(uploadId)}index.json`;

/** [shard number, offset of the block's bytes in the shard, their length]. */
const locationSchema = z.tuple([z.number().int().nonnegative(), z.number().int().nonnegative(), z.number().int().nonnegative()]);
export type BlockLocation = z.infer<typeof locationSchema>;
const shardIndexSchema = z.object({
  version: z.literal(1),
  root: z.string(),
  shards: z.number().int().nonnegative(),
  blocks: z.record(z.string(), locationSchema),
});
export type ShardIndex = z.infer<typeof shardIndexSchema>;

interface OpenShard {
  n: number;
  buffer: Uint8Array<ArrayBuffer>;
  /** Where the next section starts (after HEADER_ROOM). */
  at: number;
  first?: CID;
}

/** A block's place taken in the open shard before its bytes arrive (see `chunker`). */
interface Reservation {
  shard: OpenShard;
  /** Offset of the block's bytes: after room (from `shard.at`) for its section header. */
  data: number;
}

/** Every block CID of the profile is CIDv1 + 1-byte codec + sha2-256 multihash: 36 bytes. */
const CID_BYTES = 36;
/** The room left for a shard's CAR header (one root of the profile), written once its first block is in. */
const HEADER_ROOM = estimateHeaderLength(1, CID_BYTES);

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

const sectionHeaderLength = (cidBytes: number, length: number) => varintLength(cidBytes + length) + cidBytes;

/**
 * The import's block store during an upload: appends each block to the open shard and sends a
 * full shard with one PUT while the next one fills; the import waits (backpressure) when both
 * buffers are taken, so memory stays at two shards whatever the file's size.
 *
 * With `chunker` as the import's chunker, the file's bytes are copied once, from the request
 * straight into their place in the shard: a chunk is a view of the shard, and `put` of that view
 * only writes the section header in front of it. Without it (other blocks, the DAG's root), `put`
 * copies the block in.
 */
export class ShardWriter {
  readonly locations = new Map<string, BlockLocation>();
  private open?: OpenShard;
  private reserved?: Reservation;
  private count = 0;
  private readonly free: Uint8Array<ArrayBuffer>[] = [];
  private allocated = 0;
  private readonly sending = new Set<Promise<void>>();
  private failure: unknown;
  /** Appends run one at a time, in the order the import calls `put`. */
  private tail: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly client: S3Client,
    private readonly bucket: string,
    readonly uploadId: string,
  ) {}

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
   * shard. The import must put each chunk before it asks for the next (`blockWriteConcurrency: 1`):
   * a chunk's place is only taken once it is put.
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
    const room = sectionHeaderLength(CID_BYTES, chunkSize);
    const shard = await this.room(room + chunkSize);
    const data = shard.at + room;
    this.reserved = { shard, data };
    return shard.buffer.subarray(data, data + chunkSize);
  }

  private async append(cid: CID, bytes: Uint8Array): Promise<void> {
    if (this.failure) throw this.failure;
    const r = this.reserved;
    if (r && bytes.buffer === r.shard.buffer.buffer && bytes.byteOffset === r.shard.buffer.byteOffset + r.data) {
      this.reserved = undefined;
      return this.place(r, cid, bytes.length);
    }
    const key = cid.toString();
    if (this.locations.has(key)) return; // a chunk repeated within the file
    const shard = await this.room(sectionHeaderLength(cid.bytes.length, bytes.length) + bytes.length);
    const data = writeSectionHeader(shard.buffer, shard.at, cid, bytes.length);
    shard.buffer.set(bytes, data);
    this.added(shard, cid, data, bytes.length);
  }

  /** A reserved chunk, now put: its section header goes in front of the bytes already in place. */
  private place(r: Reservation, cid: CID, length: number): void {
    // A chunk repeated within the file: its place is taken by the next one.
    if (this.locations.has(cid.toString())) return;
    const { shard } = r;
    const header = sectionHeaderLength(cid.bytes.length, length);
    let data = r.data;
    if (shard.at + header !== data) {
      // A short last chunk has a shorter length varint: the bytes move up against their header.
      if (shard.at + header + length > shard.buffer.length) throw new Error('ShardWriter: a block outgrew its place in the shard');
      shard.buffer.copyWithin(shard.at + header, data, data + length);
      data = shard.at + header;
    }
    writeSectionHeader(shard.buffer, shard.at, cid, length);
    this.added(shard, cid, data, length);
  }

  private added(shard: OpenShard, cid: CID, data: number, length: number): void {
    shard.first ??= cid;
    shard.at = data + length;
    this.locations.set(cid.toString(), [shard.n, data, length]);
  }

  /** The open shard if `need` more bytes fit in it, else a new one (the full one is sent). */
  private async room(need: number): Promise<OpenShard> {
    if (this.open && this.open.at + need > this.open.buffer.length) this.seal();
    return this.open ?? (await this.start(need));
  }

  private async start(need: number): Promise<OpenShard> {
    let buffer: Uint8Array<ArrayBuffer>;
    if (HEADER_ROOM + need > SHARD_BYTES) buffer = new Uint8Array(HEADER_ROOM + need); // a block larger than a shard: a shard of its own
    else {
      while (!this.free.length && this.allocated >= SHARD_BUFFERS) await Promise.race(this.sending);
      if (this.failure) throw this.failure;
      buffer = this.free.pop() ?? (this.allocated++, new Uint8Array(SHARD_BYTES));
    }
    this.open = { n: this.count++, buffer, at: HEADER_ROOM };
    return this.open;
  }

  /** Closes the open shard (its CAR header written, its root the first block) and starts its PUT; its buffer is reused once S3 has it. */
  private seal(): void {
    const shard = this.open!;
    this.open = undefined;
    const { n, buffer } = shard;
    if (!shard.first) {
      // Nothing went in (its one chunk was a repeat): it is not sent, and its number is taken again.
      this.count--;
      if (buffer.length === SHARD_BYTES) this.free.push(buffer);
      return;
    }
    const roots = [shard.first];
    const header = close(createWriter(new ArrayBuffer(headerLength({ roots })), { roots }));
    let end = shard.at;
    if (header.length !== HEADER_ROOM) {
      // A root of another length than the profile's (a block put from elsewhere): the body moves.
      const shift = header.length - HEADER_ROOM;
      buffer.copyWithin(header.length, HEADER_ROOM, end);
      end += shift;
      for (const at of this.locations.values()) if (at[0] === n) at[1] += shift;
    }
    buffer.set(header, 0);
    const body = buffer.subarray(0, end);
    const sent: Promise<void> = this.client
      .send(new PutObjectCommand({ Bucket: this.bucket, Key: shardKey(this.uploadId, n), Body: body, ContentLength: body.length, ContentType: CAR_CONTENT_TYPE }))
      .then(
        () => {
          if (buffer.length === SHARD_BYTES) this.free.push(buffer);
        },
        (e: unknown) => {
          this.failure ??= e;
        },
      )
      .finally(() => this.sending.delete(sent));
    this.sending.add(sent);
  }

  /** After the import: the last shard, then the index (its presence means the upload's shards are complete). */
  async finish(root: CID): Promise<ShardIndex> {
    await this.tail;
    if (this.failure) throw this.failure;
    if (this.reserved) throw new Error('ShardWriter: the import ended with a chunk it never put');
    if (this.open) this.seal();
    await Promise.all([...this.sending]);
    if (this.failure) throw this.failure;
    const index: ShardIndex = { version: 1, root: root.toString(), shards: this.count, blocks: Object.fromEntries(this.locations) };
    const body = JSON.stringify(index);
    await this.client.send(
      new PutObjectCommand({ Bucket: this.bucket, Key: shardIndexKey(this.uploadId), Body: body, ContentLength: Buffer.byteLength(body), ContentType: 'application/json' }),
    );
    return index;
  }

  /** After a failed import: waits for the PUTs under way, then deletes whatever this upload wrote. */
  async abort(): Promise<void> {
    await this.tail;
    await Promise.all([...this.sending]);
    await deleteShards(this.client, this.bucket, this.uploadId);
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
export async function* shardUploadPages(client: S3Client, bucket: string): AsyncGenerator<string[]> {
  let token: string | undefined;
  do {
    const out = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: 'shards/', Delimiter: '/', ContinuationToken: token }));
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
  shard: number;
  start: number;
  end: number;
  blocks: { cid: CID; offset: number; length: number }[];
}

/**
 * Reads one upload's blocks from its shards: `getBytes` by a ranged GET of the block alone,
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
    const at = (await this.loadIndex()).blocks[cid.toString()];
    if (!at) return this.legacy.getBytes(cid);
    const [shard, offset, length] = at;
    if (!length) return checkBlock(cid, new Uint8Array(0));
    const out = await this.range(shard, offset, offset + length);
    const bytes = await out.Body!.transformToByteArray();
    if (bytes.length !== length) throw new BlockNotFoundError(cid.toString());
    return checkBlock(cid, bytes);
  }

  private async range(shard: number, start: number, end: number) {
    try {
      return await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: shardKey(this.uploadId, shard), Range: `bytes=${start}-${end - 1}` }));
    } catch (e) {
      if (isMissing(e)) throw new BlockNotFoundError(`shard ${shard} of upload ${this.uploadId}`);
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
      const p = this.range(r.shard, r.start, r.end);
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
