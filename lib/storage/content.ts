import * as dagPb from '@ipld/dag-pb';
import { UnixFS } from 'ipfs-unixfs';
import { CID } from 'multiformats/cid';
import { exportContent } from './cid.ts';
import type { ShardedBlockstore } from './shard-reader.ts';

const RAW = 0x55;

/**
 * The raw leaves of a UnixFS file, in file order — the file's bytes are their concatenation —
 * or undefined when some node carries bytes of its own (not our profile, which has raw leaves
 * only; the exporter then reads it). Only the dag-pb nodes are read (for 100 MB: the root).
 */
async function rawLeaves(root: CID, store: ShardedBlockstore): Promise<CID[] | undefined> {
  const leaves: CID[] = [];
  const visit = async (cid: CID): Promise<boolean> => {
    if (cid.code === RAW) {
      leaves.push(cid);
      return true;
    }
    if (cid.code !== dagPb.code) return false;
    const node = dagPb.decode(await store.getBytes(cid));
    if (!node.Data) return false;
    const unixfs = UnixFS.unmarshal(node.Data);
    if ((unixfs.type !== 'file' && unixfs.type !== 'raw') || unixfs.data?.length) return false;
    for (const link of node.Links) if (!(await visit(link.Hash))) return false;
    return true;
  };
  return (await visit(root)) ? leaves : undefined;
}

/**
 * A file's bytes from its shards, block after verified block: the leaves come from ranged reads
 * that cover a shard's worth of them at once, each leaf checked against its CID before it is
 * yielded, so a corrupted block stops the stream before any of its bytes go out.
 */
export async function* fileContent(root: string, store: ShardedBlockstore): AsyncGenerator<Uint8Array> {
  const cid = CID.parse(root);
  const leaves = await rawLeaves(cid, store);
  if (!leaves) {
    yield* exportContent(cid, store);
    return;
  }
  for await (const { parts } of store.blocks(leaves)) yield* parts;
}
