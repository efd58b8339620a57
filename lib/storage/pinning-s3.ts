import { CID } from 'multiformats/cid';
import { addBlockEntries, holdersOf, removeBlockEntries } from '#lib/data/block-index.ts';
import { AppError, errors } from '#lib/errors.ts';
import { logger } from '#lib/log.ts';
import { BlockCorruptError, BlockNotFoundError, S3Blockstore } from './blockstore.ts';
import { exportContent, importContent } from './cid.ts';
import { mapLimit, pinningCall, type Added, type PinningAdapter, type PinRef } from './pinning-port.ts';
/**
 * Blocks are shared between DAGs whenever two files contain an identical 1 MiB chunk, so a
 * block may only go when no pinned content uses it. The block index says who does: one item per
 * (block, upload that stored it), written in the background while the import runs (batched, so
 * it overlaps the S3 writes), removed when that upload fails, joins an existing pin, or its pin is
 * unpinned. The pin record names the upload that owns its index entries (`ref.owner`).
 */
export class S3Pinning implements PinningAdapter {
  readonly name = 's3' as const;
  constructor(readonly store = new S3Blockstore()) {}

  async add(source: AsyncIterable<Uint8Array>, meta: { uploadId: string }): Promise<Added> {
    const owner = meta.uploadId;
    const written: string[] = [];
    let queue: string[] = [];
    let indexing: Promise<void> = Promise.resolve();
    const flush = () => {
      const batch = queue;
      queue = [];
      if (!batch.length) return;
      indexing = indexing.then(() => addBlockEntries(batch, owner));
      indexing.catch(() => undefined); // awaited below; not an unhandled rejection meanwhile
    };
    const seen = new Set<string>();
    const recording = {
      put: async (cid: CID, bytes: Uint8Array) => {
        await this.store.put(cid, bytes);
        // Indexed after the block is written: an unpin that saw no entry and deleted the block
        // is then detected by present() (see pins.ts).
        const s = cid.toString();
        if (seen.has(s)) return cid; // a chunk repeated within the file
        seen.add(s);
        written.push(s);
        queue.push(s);
        if (queue.length >= 25) flush();
        return cid;
      },
    };
    try {
      const { cid, size } = await pinningCall('import', () => importContent(source, recording));
      flush();
      await pinningCall('block index', () => indexing);
      return { cid: cid.toString(), size, ref: { blocks: written, owner } };
    } catch (e) {
      // The upload failed while streaming (too large, aborted): drop what it wrote.
      flush();
      await indexing.catch(() => undefined);
      await this.dropUnused(written, owner).catch((err) => logger.error('block cleanup failed', { error: err as Error }));
      throw e;
    }
  }

  async discard(added: Added, existing?: PinRef): Promise<void> {
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
    await mapLimit(blocks, 16, async (b) => {
      if ((await holdersOf(b)).length) return;
      // Read-then-delete races with an upload that starts using the block in between: keep the
      // bytes, delete, look again, and put them back if an upload claimed the block meanwhile.
      let bytes: Uint8Array | undefined;
      try {
        bytes = await this.store.getBytes(CID.parse(b));
      } catch (e) {
        if (!(e instanceof BlockNotFoundError) && !(e instanceof BlockCorruptError)) throw e;
      }
      await this.store.delete(b);
      if (bytes && (await holdersOf(b)).length) await this.store.put(CID.parse(b), bytes);
    });
  }

  async unpin(cid: string, ref: PinRef): Promise<void> {
    await pinningCall('unpin', () => this.dropUnused(ref.blocks ?? [], ref.owner ?? ''));
  }

  async present(_cid: string, ref: PinRef): Promise<boolean> {
    const found = await mapLimit(ref.blocks ?? [], 32, (b) => this.store.has(b));
    return found.every(Boolean);
  }

  async *cat(cid: string): AsyncIterable<Uint8Array> {
    try {
      yield* exportContent(cid, this.store);
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
