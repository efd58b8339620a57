import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  PutObjectCommand,
  type S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { close, createWriter, headerLength } from '@ipld/car/buffer-writer';
import { CID } from 'multiformats/cid';
import {
  CAR_CONTENT_TYPE,
  DATA,
  DATA_CONTENT_TYPE,
  dataKey,
  deleteShards,
  SHARD_BYTES,
  shardIndexKey,
  shardKey,
  type BlockLocation,
  type ShardIndex,
} from './shards.ts';

/** The upload side of the shard layout (shards.ts): the data object's multipart writer and the CAR shards. */
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

/**
 * Whole part buffers kept between uploads (at most PART_BUFFERS): without them every upload
 * allocated its 16 MiB of parts again (the first grown from one chunk: 23 MiB in all for a
 * 100 MB file), external memory that counts towards V8's next full collection of the heap
 * and stays in the RSS until the allocator gives it back. A buffer is kept only once no
 * request can still hold it (its part was sent, or the single PUT answered).
 */
const spareParts: Uint8Array<ArrayBuffer>[] = [];
function keepSpare(buffers: Iterable<Uint8Array<ArrayBuffer>>, size: number): void {
  for (const buffer of buffers) if (buffer.length === size && spareParts.length < PART_BUFFERS && !spareParts.includes(buffer)) spareParts.push(buffer);
}
function takeSpare(size: number): Uint8Array<ArrayBuffer> | undefined {
  const i = spareParts.findIndex((b) => b.length === size);
  return i < 0 ? undefined : spareParts.splice(i, 1)[0];
}

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
    // An upload's first part starts at one chunk and grows (a small file never allocates a whole
    // part's memory), unless a whole part is spare.
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
    this.carSent = this.track(
      this.client.send(
        new PutObjectCommand({ Bucket: this.bucket, Key: shardKey(this.uploadId, n), Body: body, ContentLength: body.length, ContentType: CAR_CONTENT_TYPE }),
      ),
    );
  }

  private async partBuffer(size: number): Promise<Uint8Array<ArrayBuffer>> {
    while (!this.freeParts.length && this.partsAllocated >= PART_BUFFERS) {
      // A failed part never gives its buffer back: stop waiting for one.
      if (this.failure) throw this.failure;
      await Promise.race(this.sending);
    }
    if (this.failure) throw this.failure;
    const free = this.freeParts.pop();
    if (free) return free;
    this.partsAllocated++;
    return takeSpare(this.partSize) ?? new Uint8Array(size);
  }

  /** Sends the part filling (the multipart upload starts with the first); its buffer is reused once S3 has it. */
  private sealPart(): void {
    const buffer = this.part!;
    const size = this.partAt;
    this.part = undefined;
    this.partAt = 0;
    this.sealedBytes += size;
    const Key = dataKey(this.uploadId);
    this.multipart ??= this.client
      .send(new CreateMultipartUploadCommand({ Bucket: this.bucket, Key, ContentType: DATA_CONTENT_TYPE }))
      .then((o) => o.UploadId!);
    const PartNumber = this.parts.length + 1;
    const sent = this.multipart.then(async (UploadId) => {
      const out = await this.client.send(
        new UploadPartCommand({ Bucket: this.bucket, Key, UploadId, PartNumber, Body: buffer.subarray(0, size), ContentLength: size }),
      );
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
    // Every request is answered: the parts' buffers (and a single PUT's) are spare for the next upload.
    keepSpare(this.part && !this.multipart ? [...this.freeParts, this.part] : this.freeParts, this.partSize);
    this.freeParts.length = 0;
    this.part = undefined;
    const index: ShardIndex = { version: 2, root: root.toString(), shards: this.count, ...(data ? { data } : {}), blocks: Object.fromEntries(this.locations) };
    const body = JSON.stringify(index);
    await this.client.send(
      new PutObjectCommand({
        Bucket: this.bucket,
        Key: shardIndexKey(this.uploadId),
        Body: body,
        ContentLength: Buffer.byteLength(body),
        ContentType: 'application/json',
      }),
    );
    return index;
  }

  private async finishData(): Promise<{ size: number; etag: string }> {
    const size = this.sealedBytes + this.partAt;
    const Key = dataKey(this.uploadId);
    if (!this.multipart) {
      // All of it in one part: one PUT.
      const body = this.part!.subarray(0, this.partAt);
      const out = await this.client.send(
        new PutObjectCommand({ Bucket: this.bucket, Key, Body: body, ContentLength: body.length, ContentType: DATA_CONTENT_TYPE }),
      );
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
    // Only the buffers of parts S3 answered: the one filling may still be read by the import.
    keepSpare(this.freeParts, this.partSize);
    this.freeParts.length = 0;
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
