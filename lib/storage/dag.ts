import { CID } from 'multiformats/cid';
import { linksOf } from '#lib/client/storage-proof.ts';

/** Reads a block, checked against its CID (S3Blockstore.getBytes and friends). */
export type BlockReader = (cid: CID) => Promise<Uint8Array>;

const RAW = 0x55;

/**
 * Every block of a UnixFS DAG, root first, depth first, each once. Raw leaves are listed from
 * their parent's links without being read; only dag-pb nodes are fetched (for a 100 MB file:
 * the root alone).
 */
export async function dagBlocks(root: string, read: BlockReader): Promise<string[]> {
  const seen = new Set<string>();
  const out: string[] = [];
  const visit = async (cid: CID): Promise<void> => {
    const s = cid.toString();
    if (seen.has(s)) return;
    seen.add(s);
    out.push(s);
    if (cid.code === RAW) return;
    for (const child of linksOf(cid, await read(cid))) await visit(child);
  };
  await visit(CID.parse(root));
  return out;
}
