import { GetObjectCommand, HeadObjectCommand } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { CID } from 'multiformats/cid';
import * as z from 'zod';
import { errors } from '#lib/errors.ts';
import { binary, redirect, type Reply } from '#lib/http/reply.ts';
import { blockSourceOf } from './block-source.ts';
import { carHeader, varint } from './car.ts';
import { parseCid } from './cid.ts';
import { storageConfig } from './config.ts';
import { dagBlocks } from './dag.ts';
import { carKey, livePin } from './pins.ts';
import { mapReadError } from './pinning.ts';
import { writeObject } from './object-writer.ts';
import type { BlockSource } from './pinning-s3.ts';
import { bucket, s3 } from './s3.ts';
import { ShardedBlockstore, type StoredBlock } from './shard-reader.ts';
import { resolveShare } from './share-links.ts';

/**
 * `GET /api/storage/ipfs/:cid?token=<share token>` — a trustless gateway response (IPFS
 * Trustless Gateway spec, `application/vnd.ipld.car`) for a file shared by link: the file's
 * whole DAG as a CARv1, root first, so any IPFS tool can check every block against its CID
 * itself. The share token is the capability, exactly as for `shared/:token`. Above the download
 * threshold the CAR is assembled once as `cars/<cid>` and the answer is 302 to a presigned GET.
 */
export const CAR_TYPE = 'application/vnd.ipld.car';

export const ipfsParams = z.object({ cid: z.string().min(1).max(200) });
export const ipfsQuery = z.object({
  token: z.string().min(1).max(64),
  format: z.enum(['car']).optional(),
});

async function* perBlock(cids: CID[], store: BlockSource): AsyncGenerator<StoredBlock> {
  for (const cid of cids) {
    const bytes = await store.getBytes(cid);
    yield { cid, length: bytes.length, parts: [bytes] };
  }
}

/** The CAR's sections: the header, then each block as varint(length) ‖ CID ‖ bytes, every block checked against its CID on the way. */
export async function* carSections(root: string): AsyncGenerator<Uint8Array> {
  const rootCid = CID.parse(root);
  const store = await blockSourceOf(root);
  yield carHeader(rootCid);
  const order = (await dagBlocks(root, (c) => store.getBytes(c))).map((b) => CID.parse(b));
  // From shards: neighbouring blocks in one ranged read; older pins: one read per block.
  const blocks = store instanceof ShardedBlockstore ? store.blocks(order) : perBlock(order, store);
  for await (const { cid, length, parts } of blocks) {
    yield varint(cid.bytes.length + length);
    yield cid.bytes;
    yield* parts;
  }
}

export async function trustlessCar(cidParam: string, q: z.infer<typeof ipfsQuery>, accept: string | undefined): Promise<Reply> {
  if (q.format !== 'car' && !(accept ?? '').toLowerCase().includes(CAR_TYPE)) {
    throw errors.invalidInput(`Accept: this gateway answers ${CAR_TYPE} only (send that Accept header, or ?format=car)`);
  }
  const cid = parseCid(cidParam);
  if (!cid) throw errors.invalidInput('cid: not a CID');
  const { file } = await resolveShare(q.token);
  // The link is a capability for its own file only.
  if (file.cid !== cid.toString()) throw errors.cidNotFound();
  await livePin(file.cid);
  const headers = {
    'content-type': `${CAR_TYPE}; version=1`,
    'content-disposition': `attachment; filename="${file.cid}.car"`,
    'x-ipfs-roots': file.cid,
    etag: `"${file.cid}.car"`,
  };
  try {
    if (file.size <= storageConfig.DOWNLOAD_REDIRECT_BYTES) {
      const parts: Uint8Array[] = [];
      for await (const s of carSections(file.cid)) parts.push(s);
      return binary(Buffer.concat(parts), headers);
    }
    if (!(await exists(carKey(file.cid)))) await assembleCar(file.cid);
  } catch (e) {
    throw mapReadError(e);
  }
  const url = await getSignedUrl(
    s3,
    new GetObjectCommand({
      Bucket: bucket,
      Key: carKey(file.cid),
      ResponseContentType: headers['content-type'],
      ResponseContentDisposition: headers['content-disposition'],
    }),
    { expiresIn: storageConfig.PRESIGN_SECONDS },
  );
  return redirect(url);
}

async function exists(key: string): Promise<boolean> {
  try {
    await s3.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
    return true;
  } catch {
    return false;
  }
}

/** Writes `cars/<cid>` (multipart: its size is known only at the end; one 8 MiB part in memory at a time). */
async function assembleCar(cid: string): Promise<void> {
  await writeObject(carKey(cid), carSections(cid), { contentType: CAR_TYPE });
}
