import { getPin } from '#lib/data/pins.ts';
import { errors } from '#lib/errors.ts';
import { S3Blockstore } from './blockstore.ts';
import { pinning } from './pinning.ts';
import { S3Pinning, type BlockSource } from './pinning-s3.ts';

const perBlock = new S3Blockstore();

/**
 * The blocks of the pinned DAG under `root`, for whoever walks it (the trustless gateway, the
 * replica worker and audit): its upload's shards, or the per-block objects of older pins — each
 * block checked against its CID on every read. CID_NOT_FOUND when nothing pins `root`.
 */
export async function blockSourceOf(root: string): Promise<BlockSource> {
  const pin = await getPin(root);
  if (!pin || pin.state !== 'pinned') throw errors.cidNotFound();
  const adapter = await pinning();
  return adapter instanceof S3Pinning ? adapter.storeFor(pin.ref) : perBlock;
}
