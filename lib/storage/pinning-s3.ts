import { CopyObjectCommand, HeadObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { CID } from 'multiformats/cid';
import { addBlockEntries, holdersOf, removeBlockEntries } from '#lib/data/block-index.ts';
import { AppError, errors } from '#lib/errors.ts';
import { logger } from '#lib/log.ts';
import { BlockCorruptError, BlockNotFoundError, isMissing, type ListingFrom, S3Blockstore } from './blockstore.ts';
import { CHUNK_BYTES, exportContent, importContent } from './cid.ts';
import { fileContent } from './content.ts';
import { mapLimit, pinningCall, type AddMeta, type Added, type PinningAdapter, type PinRef } from './pinning-port.ts';
import { bucket as defaultBucket, s3 as defaultClient } from './s3.ts';
import { ShardedBlockstore } from './shard-reader.ts';
import { ShardWriter } from './shard-writer.ts';
import { DATA_CONTENT_TYPE, dataKey, deleteShards, shardIndexKey, shardUploadPages } from './shards.ts';

/** A read-only view of stored blocks: the CAR layout's shards or the per-block objects. */
export type BlockSource = Pick<S3Blockstore, 'get' | 'getBytes' | 'has'>;

/** Shard indexes are immutable once written: the stores of recently read uploads are kept. */
const SHARD_STORES_KEPT = 64;

/**
 * Two layouts, read side by side:
 *
 * - `car` (every upload since the CAR layout, shards.ts): an upload's objects under `shards/<uploadId>/`
 *   (the file's bytes as one data object, the DAG's other blocks in CAR shards), which belong to
 *   that upload alone; the pin's ref names the upload (`owner`), the number of CAR shards, and
 *   the data object with its ETag as written (`copy`). Unpinning or discarding deletes the prefix.
 * - `blocks` (before): one object `blocks/<cid>` per block, shared between DAGs. What follows is
 *   about this layout, which stays readable (a pin's ref without `shards`) and deletable as it
 *   was, with no migration; the `blocks` layout can still be written (tests of old data).
 *
 * Blocks are shared between DAGs whenever two files contain an identical 1 MiB chunk, so a
 * block may only go when no pinned content uses it. The block index says who does: one item per
 * (block, upload that stored it), removed when that upload fails, joins an existing pin, or its
 * pin is unpinned. The pin record names the upload that owns its index entries (`ref.owner`).
 *
 * Every block's entry is written *before* the block itself. So a block object is never there
 * without an entry of the upload writing it (a crash leaves the entry, which the upload journal
 * lets the sweeper take back), and a delete that looks at the entries, deletes, and looks again
 * (`deleteIfUnheld`) always sees an upload that is re-using the block: if its entry came after
 * the second look, its own write of the block comes after the delete.
 */
export class S3Pinning implements PinningAdapter {
  readonly name = 's3' as const;
  /** Every block is checked against its CID as it is read (blockstore.ts, shards.ts). */
  readonly verifiedReads = true;
  private readonly shardStores = new Map<string, ShardedBlockstore>();

  constructor(
    /** The per-block layout's objects. */
    readonly store = new S3Blockstore(),
    readonly layout: 'car' | 'blocks' = 'car',
    private readonly client: S3Client = defaultClient,
    private readonly bucket: string = defaultBucket,
  ) {}

  /** Where a pinned CID's blocks are read from. */
  storeFor(ref: PinRef): BlockSource {
    if (ref.shards === undefined || !ref.owner) return this.store;
    let store = this.shardStores.get(ref.owner);
    if (!store) {
      store = new ShardedBlockstore(this.client, this.bucket, ref.owner, this.store);
      if (this.shardStores.size >= SHARD_STORES_KEPT) this.shardStores.delete(this.shardStores.keys().next().value!);
      this.shardStores.set(ref.owner, store);
    }
    return store;
  }

  async add(source: AsyncIterable<Uint8Array>, meta: Pick<AddMeta, 'uploadId' | 'staged'>): Promise<Added> {
    if (this.layout === 'blocks') return this.addBlocks(source, meta);
    // Bytes already in the bucket (a presigned upload) become the data object by a server-side
    // copy, while the import reads them to check them: nothing is written back through here.
    // Copied only if the staged object still has the ETag it was read at.
    const copied = meta.staged && this.copyStaged(meta.staged, meta.uploadId);
    const shards = new ShardWriter(this.client, this.bucket, meta.uploadId, copied);
    try {
      // The file's bytes go from the request straight into their place in the data object (one copy); blocks are put one at a time.
      const { cid, size } = await pinningCall('import', () =>
        importContent(source, shards, { chunker: shards.chunker(CHUNK_BYTES), blockWriteConcurrency: 1 }),
      );
      const index = await pinningCall('import', () => shards.finish(cid));
      const copy = index.data && index.data.size === size ? { copy: { key: dataKey(meta.uploadId), etag: index.data.etag } } : {};
      return { cid: cid.toString(), size, ref: { owner: meta.uploadId, shards: shards.shards, ...copy } };
    } catch (e) {
      // The upload failed while streaming (too large, aborted): drop what it wrote.
      await shards.abort().catch((err: unknown) => logger.error('shard cleanup failed', { error: err as Error }));
      throw e;
    }
  }

  private async copyStaged(staged: NonNullable<AddMeta['staged']>, uploadId: string): Promise<{ etag: string }> {
    const out = await this.client.send(
      new CopyObjectCommand({
        Bucket: this.bucket,
        Key: dataKey(uploadId),
        CopySource: `${this.bucket}/${staged.key}`,
        CopySourceIfMatch: staged.etag,
        ContentType: DATA_CONTENT_TYPE,
        MetadataDirective: 'REPLACE',
      }),
    );
    return { etag: out.CopyObjectResult!.ETag! };
  }

  private async addBlocks(source: AsyncIterable<Uint8Array>, meta: { uploadId: string }): Promise<Added> {
    const owner = meta.uploadId;
    const written: string[] = [];
    // One entry per distinct block (a chunk may repeat within the file); a repeat waits for it.
    const indexed = new Map<string, Promise<void>>();
    const recording = {
      put: async (cid: CID, bytes: Uint8Array) => {
        const s = cid.toString();
        let entry = indexed.get(s);
        if (!entry) {
          written.push(s);
          entry = addBlockEntries([s], owner);
          indexed.set(s, entry);
        }
        await entry;
        await this.store.put(cid, bytes);
        return cid;
      },
    };
    try {
      const { cid, size } = await pinningCall('import', () => importContent(source, recording));
      return { cid: cid.toString(), size, ref: { blocks: written, owner } };
    } catch (e) {
      // The upload failed while streaming (too large, aborted): drop what it wrote.
      await Promise.allSettled(indexed.values());
      await this.dropUnused(written, owner).catch((err) => logger.error('block cleanup failed', { error: err as Error }));
      throw e;
    }
  }

  async discard(added: Added, existing?: PinRef): Promise<void> {
    // Shards are never shared: whatever pin exists, this upload's own go.
    if (added.ref.shards !== undefined) return deleteShards(this.client, this.bucket, added.ref.owner!);
    const blocks = added.ref.blocks ?? [];
    const owner = added.ref.owner!;
    if (existing) {
      // The same content is pinned by another upload, whose index entries hold every block.
      await removeBlockEntries(blocks, owner);
      return;
    }
    await this.dropUnused(blocks, owner);
  }

  /** Removes `owner`'s index entries, then deletes the blocks no other upload's entry holds. */
  private async dropUnused(blocks: string[], owner: string): Promise<void> {
    await removeBlockEntries(blocks, owner);
    await mapLimit(blocks, 16, (b) => this.deleteIfUnheld(b));
  }

  /**
   * Deletes `block` if no entry holds it. Look-then-delete races with an upload that starts
   * re-using the block in between: keep the bytes, delete, look again, and put them back if an
   * entry appeared meanwhile. `beforeDelete` is a test hook into that window. True when deleted.
   */
  async deleteIfUnheld(block: string, beforeDelete?: () => Promise<void>): Promise<boolean> {
    if ((await holdersOf(block)).length) return false;
    let bytes: Uint8Array | undefined;
    try {
      bytes = await this.store.getBytes(CID.parse(block));
    } catch (e) {
      if (!(e instanceof BlockNotFoundError) && !(e instanceof BlockCorruptError)) throw e;
    }
    await beforeDelete?.();
    await this.store.delete(block);
    let held: boolean;
    try {
      held = (await holdersOf(block)).length > 0;
    } catch (e) {
      // Cannot tell: keeping a block is always safe, losing a used one never is.
      if (bytes) await this.store.put(CID.parse(block), bytes);
      throw e;
    }
    if (held && bytes) await this.store.put(CID.parse(block), bytes);
    return !held;
  }

  async unpin(cid: string, ref: PinRef): Promise<void> {
    if (ref.shards !== undefined) return pinningCall('unpin', () => deleteShards(this.client, this.bucket, ref.owner!));
    await pinningCall('unpin', () => this.dropUnused(ref.blocks ?? [], ref.owner ?? ''));
  }

  async present(_cid: string, ref: PinRef): Promise<boolean> {
    // The index is written after every shard, and only this upload deletes them.
    if (ref.shards !== undefined) return this.exists(shardIndexKey(ref.owner!));
    const found = await mapLimit(ref.blocks ?? [], 32, (b) => this.store.has(b));
    return found.every(Boolean);
  }

  /** The uploads that have shards, a page at a time (the sweeper). */
  shardUploads(from: ListingFrom = {}): AsyncGenerator<string[]> {
    return shardUploadPages(this.client, this.bucket, from);
  }

  /** Deletes an upload's shards (the sweeper, for an upload that died). */
  dropShards(uploadId: string): Promise<void> {
    return deleteShards(this.client, this.bucket, uploadId);
  }

  private async exists(key: string): Promise<boolean> {
    try {
      await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }));
      return true;
    } catch (e) {
      if (isMissing(e)) return false;
      throw e;
    }
  }

  async *cat(cid: string, ref: PinRef): AsyncIterable<Uint8Array> {
    try {
      const store = this.storeFor(ref);
      yield* store instanceof ShardedBlockstore ? fileContent(cid, store) : exportContent(cid, this.store);
    } catch (e) {
      throw mapReadError(e);
    }
  }
}

export function mapReadError(e: unknown): unknown {
  if (e instanceof AppError) return e;
  if (e instanceof BlockNotFoundError) return errors.cidNotFound();
  if (e instanceof BlockCorruptError) {
    logger.error('stored block does not match its CID', { cid: e.cid });
    return errors.checksumMismatch('stored content failed its integrity check');
  }
  // A block that does not decode as what its CID says is corrupted content, too.
  const name = (e as { name?: string })?.name ?? '';
  if (/NotUnixFS|InvalidPB|Decode|NoResolver/i.test(name) || /decode|invalid/i.test((e as Error)?.message ?? '')) {
    logger.error('stored block does not decode', { error: e as Error });
    return errors.checksumMismatch('stored content failed its integrity check');
  }
  logger.error('pinning service error', { what: 'cat', error: e as Error });
  return errors.pinningError('pinning service error (read)');
}

// ---------------------------------------------------------------------------------------------
