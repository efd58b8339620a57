import { BatchWriteCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { CID } from 'multiformats/cid';
import { db, tableName } from '#lib/data/client.ts';
import { AppError, errors } from '#lib/http/errors.ts';
import { logger } from '#lib/http/log.ts';
import { BlockCorruptError, BlockNotFoundError, S3Blockstore } from './blockstore.ts';
import { exportContent, importContent } from './cid.ts';
import { storageConfig } from './config.ts';

/** What an adapter needs to find a pinned CID's content again (kept on the pin record). */
export interface PinRef {
  /** s3: every block of the DAG, so unpinning needs no DAG walk. */
  blocks?: string[];
  /** pinata: its file id (for unpinning) and the CID Pinata computed (for the gateway). */
  pinataId?: string;
  pinataCid?: string;
}

export interface Added {
  cid: string;
  size: number;
  ref: PinRef;
}

/**
 * A pinning service. Content goes in as a stream and comes back as a stream; the CID is always
 * the project's own (lib/storage/cid.ts), whatever the service computes for itself. Reference
 * counting across records lives in the pin records (pins.ts), not here: `unpin` is only called
 * for a CID no record references any more.
 */
export interface PinningAdapter {
  readonly name: 's3' | 'pinata';
  add(source: AsyncIterable<Uint8Array>, meta: { name: string }): Promise<Added>;
  /** Before a pin record points at `added`: protect its content from concurrent unpins of other CIDs. */
  retain(added: Added): Promise<void>;
  /** After a failed upload: removes what `add` stored that nothing else uses. `existing` is the live pin's ref, if the CID was pinned already. */
  discard(added: Added, existing?: PinRef): Promise<void>;
  unpin(cid: string, ref: PinRef): Promise<void>;
  /** Whether all of the content is there (checked once, when a CID is newly pinned). */
  present(cid: string, ref: PinRef): Promise<boolean>;
  /** The content; CID_NOT_FOUND when gone, CHECKSUM_MISMATCH when a block is not what its CID says. */
  cat(cid: string, ref: PinRef): AsyncIterable<Uint8Array>;
}

/** Runs `fn` over `items`, at most `limit` at a time. */
export async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

/** Service failures become 502 PINNING_ERROR; our own AppErrors pass through. */
export async function pinningCall<T>(what: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if (e instanceof AppError) throw e;
    logger.error('pinning service error', { what, error: e as Error });
    throw errors.pinningError(`pinning service error (${what})`);
  }
}

// ---------------------------------------------------------------------------------------------
// s3: blocks in the project's bucket

/**
 * Blocks are shared between DAGs whenever two files contain an identical 1 MiB chunk, so a
 * block may only go when no pinned root uses it. The block index — one item per (block, root),
 * written before the root's pin record exists and removed when it is unpinned — says who does.
 */
const blockKey = (block: string, root: string) => ({ pk: `BLOCK#${block}`, sk: `ROOT#${root}` });

async function batchWrite(requests: Record<string, unknown>[]): Promise<void> {
  for (let i = 0; i < requests.length; i += 25) {
    let pending: Record<string, unknown>[] | undefined = requests.slice(i, i + 25);
    for (let attempt = 0; pending?.length; attempt++) {
      if (attempt > 8) throw new Error('block index: unprocessed items after retries');
      if (attempt) await new Promise((r) => setTimeout(r, 20 * 2 ** attempt));
      const out = await db.send(new BatchWriteCommand({ RequestItems: { [tableName]: pending as never } }));
      pending = out.UnprocessedItems?.[tableName] as Record<string, unknown>[] | undefined;
    }
  }
}

async function rootsUsing(block: string): Promise<string[]> {
  const out = await db.send(
    new QueryCommand({
      TableName: tableName,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': `BLOCK#${block}` },
      ConsistentRead: true,
    }),
  );
  return (out.Items ?? []).map((i) => String(i.sk).slice('ROOT#'.length));
}

export class S3Pinning implements PinningAdapter {
  readonly name = 's3' as const;
  constructor(readonly store = new S3Blockstore()) {}

  async add(source: AsyncIterable<Uint8Array>): Promise<Added> {
    const written = new Set<string>();
    const recording = {
      put: async (cid: CID, bytes: Uint8Array) => {
        await this.store.put(cid, bytes);
        written.add(cid.toString());
        return cid;
      },
    };
    try {
      const { cid, size } = await importContent(source, recording);
      return { cid: cid.toString(), size, ref: { blocks: [...written] } };
    } catch (e) {
      // The upload failed while streaming (too large, aborted): drop what it wrote.
      await this.dropUnused([...written]).catch((err) => logger.error('block cleanup failed', { error: err as Error }));
      throw e;
    }
  }

  async retain(added: Added): Promise<void> {
    await pinningCall('block index', () =>
      batchWrite((added.ref.blocks ?? []).map((b) => ({ PutRequest: { Item: { ...blockKey(b, added.cid), root: added.cid } } }))),
    );
  }

  async discard(added: Added, existing?: PinRef): Promise<void> {
    if (existing) return; // the same CID is pinned: every block it wrote belongs to that pin
    await this.dropUnused(added.ref.blocks ?? [], added.cid);
  }

  /** Deletes blocks no pinned root uses (after removing `root`'s own index entries). */
  private async dropUnused(blocks: string[], root?: string): Promise<void> {
    await mapLimit(blocks, 16, async (b) => {
      if (root) await batchWrite([{ DeleteRequest: { Key: blockKey(b, root) } }]);
      if ((await rootsUsing(b)).length) return;
      // Read-then-delete races with an upload that starts using the block in between: keep the
      // bytes, delete, look again, and put them back if a root claimed the block meanwhile.
      let bytes: Uint8Array | undefined;
      try {
        bytes = await this.store.getBytes(CID.parse(b));
      } catch (e) {
        if (!(e instanceof BlockNotFoundError) && !(e instanceof BlockCorruptError)) throw e;
      }
      await this.store.delete(b);
      if (bytes && (await rootsUsing(b)).length) await this.store.put(CID.parse(b), bytes);
    });
  }

  async unpin(cid: string, ref: PinRef): Promise<void> {
    await pinningCall('unpin', () => this.dropUnused(ref.blocks ?? [], cid));
  }

  async present(_cid: string, ref: PinRef): Promise<boolean> {
    const found = await mapLimit(ref.blocks ?? [], 16, (b) => this.store.has(b));
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

let adapter: PinningAdapter | undefined;

/** The configured adapter, built once per cold start. */
export async function pinning(): Promise<PinningAdapter> {
  if (adapter) return adapter;
  if (storageConfig.PINNING_ADAPTER === 'pinata') {
    const { PinataPinning } = await import('./pinning-pinata.ts');
    adapter = new PinataPinning(storageConfig);
  } else adapter = new S3Pinning();
  return adapter;
}

/** Test hook. */
export function setPinning(a: PinningAdapter | undefined): void {
  adapter = a;
}
