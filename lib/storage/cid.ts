import { exporter } from 'ipfs-unixfs-exporter';
import { importFile, type ImporterOptions, type WritableStorage } from 'ipfs-unixfs-importer';
import { CID } from 'multiformats/cid';
import type { S3Blockstore } from './blockstore.ts';

/**
 * The CID profile of the whole project: CIDv1, IPIP-499 `unixfs-v1-2025` — raw leaves, 1 MiB
 * chunks, balanced DAG of up to 1024 links, sha2-256. kubo gives the same CIDs with
 * `ipfs add --cid-version=1 --chunker=size-1048576 --raw-leaves` (its `test-cid-v1-wide`
 * profile); below 174 MiB (all our files) kubo's default link width changes nothing either.
 */
export const CID_PROFILE = 'unixfs-v1-2025' as const;
/** The profile's chunk size: a custom chunker must cut the same chunks to give the same CIDs. */
export const CHUNK_BYTES = 1024 * 1024;

export const importerOptions = (extra: ImporterOptions = {}): ImporterOptions => ({
  profile: CID_PROFILE,
  // Bounded so a 100 MB import holds ~16 chunks of 1 MiB in flight, not 50.
  blockWriteConcurrency: 16,
  ...extra,
});

/** A blockstore that keeps nothing: computes CIDs only (hash-only import, e.g. for Pinata). */
export const discardingStore: WritableStorage = { put: async (cid: CID) => cid };

/** Imports a byte stream as a UnixFS file; the blocks go to `store`. */
export async function importContent(
  source: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
  store: WritableStorage,
  extra: ImporterOptions = {},
): Promise<{ cid: CID; size: number }> {
  const entry = await importFile({ content: source }, store, importerOptions(extra));
  // entry.size is the DAG's size (blocks and links); the file's own is in its UnixFS node.
  return { cid: entry.cid, size: Number(entry.unixfs ? entry.unixfs.fileSize() : entry.size) };
}

/** The CID of `bytes` under the project's profile (or another, for cross-checks). */
export async function cidOf(bytes: Uint8Array, extra: ImporterOptions = {}): Promise<string> {
  return (await importContent([bytes], discardingStore, extra)).cid.toString();
}

/** The file's bytes, streamed block by block from the store. */
export async function* exportContent(cid: string | CID, store: Pick<S3Blockstore, 'get'>): AsyncGenerator<Uint8Array> {
  const entry = await exporter(typeof cid === 'string' ? CID.parse(cid) : cid, store as never);
  if (entry.type !== 'file' && entry.type !== 'raw') throw new Error(`${cid} is not a file`);
  yield* entry.content({ blockReadConcurrency: 4 } as never);
}

/** A CID string in canonical form, or null when it is not a CID. */
export function parseCid(s: string): CID | null {
  try {
    return CID.parse(s);
  } catch {
    return null;
  }
}
