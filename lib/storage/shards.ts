import { DeleteObjectsCommand, ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import * as z from 'zod';
import type { ListingFrom } from './blockstore.ts';

/**
 * The shard layout of the s3 adapter: an upload's objects under `shards/<uploadId>/`, and an
 * index object `shards/<uploadId>/index.json` from block CID to (object, offset, length) of the
 * block's bytes.
 *
 * Version 2 (written since the data object): the file's bytes, exactly as uploaded, are one
 * object `data` (location 0), written by a multipart upload in 8 MiB parts as the import cuts
 * them; with raw leaves every leaf block is a range of it. The DAG's other blocks (its inner
 * nodes: one for a file under 1 GB) are in CARv1 shards `1.car`, `2.car` … (roots: their first
 * block). So the upload writes the file's bytes once and no more requests than parts, the data
 * object is the download copy large files are redirected to (its ETag, recorded as written, is
 * checked instead of reading it again), and a file is read back with one ranged GET. The CIDs are
 * the import's as ever, and the trustless gateway builds its CAR from the blocks.
 *
 * Version 1 (uploads before it; still read): every block in CARv1 shards `0.car`, `1.car` …
 *
 * Why an index object and not DynamoDB items: every reader starts from a pin, whose upload names
 * the index, and wants all of a file's locations at once — one GET of a few KB; the index lives
 * and dies with its objects (written last, deleted with them), and it costs no per-block writes.
 * Shards belong to one upload and are never shared, so no per-block reference counts are needed:
 * the files are ciphertext, so identical 1 MiB chunks across files are not worth sharing.
 *
 * This file: the layout (keys, the index's versions) and its listing and deletion (the sweeper);
 * shard-writer.ts writes an upload's objects, shard-reader.ts reads blocks back.
 */
export const SHARD_BYTES = 8 * 1024 * 1024;
export const CAR_CONTENT_TYPE = 'application/vnd.ipld.car';
export const DATA_CONTENT_TYPE = 'application/octet-stream';

export const shardPrefix = (uploadId: string) => `shards/${uploadId}/`;
export const shardKey = (uploadId: string, n: number) => `${shardPrefix(uploadId)}${n}.car`;
export const shardIndexKey = (uploadId: string) => `${shardPrefix(uploadId)}index.json`;
/** Version 2: the file's bytes as uploaded. */
export const dataKey = (uploadId: string) => `${shardPrefix(uploadId)}data`;
/** Version 2: the location of a block in the data object. */
export const DATA = 0;

/** [object (v2: 0 the data object, n the CAR shard n.car; v1: the CAR shard n.car), offset of the block's bytes in it, their length]. */
const locationSchema = z.tuple([z.number().int().nonnegative(), z.number().int().nonnegative(), z.number().int().nonnegative()]);
export type BlockLocation = z.infer<typeof locationSchema>;
const shardIndexSchema = z.object({
  version: z.union([z.literal(1), z.literal(2)]),
  root: z.string(),
  /** How many CAR shards (v2: numbered from 1; v1: from 0). */
  shards: z.number().int().nonnegative(),
  /** v2: the data object's size and its ETag as written (absent when no chunk was stored, e.g. an empty file). */
  data: z.object({ size: z.number().int().nonnegative(), etag: z.string() }).optional(),
  blocks: z.record(z.string(), locationSchema),
});
export type ShardIndex = z.infer<typeof shardIndexSchema>;

/** An index object's JSON, checked. */
export const parseShardIndex = (json: string): ShardIndex => shardIndexSchema.parse(JSON.parse(json));

/** The key of the object a location names. */
export const objectKey = (uploadId: string, version: ShardIndex['version'], n: number) =>
  version === 2 && n === DATA ? dataKey(uploadId) : shardKey(uploadId, n);

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
export async function* shardUploadPages(client: S3Client, bucket: string, from: ListingFrom = {}): AsyncGenerator<string[]> {
  let token: string | undefined;
  do {
    const out = await client.send(
      new ListObjectsV2Command({
        Bucket: bucket,
        Prefix: 'shards/',
        Delimiter: '/',
        ContinuationToken: token,
        // After every key of `shards/<after>/`: '0' is the character after '/'.
        ...(from.after && !token ? { StartAfter: `shards/${from.after}0` } : {}),
        MaxKeys: from.pageSize,
      }),
    );
    yield (out.CommonPrefixes ?? []).flatMap((p) => (p.Prefix ? [p.Prefix.slice('shards/'.length, -1)] : []));
    token = out.IsTruncated ? out.NextContinuationToken : undefined;
  } while (token);
}
