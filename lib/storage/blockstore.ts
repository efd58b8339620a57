import { DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { createHash } from 'node:crypto';
import type { CID } from 'multiformats/cid';
import { bucket as defaultBucket, s3 as defaultClient } from './s3.ts';

/** sha2-256 in multihash codes. */
const SHA2_256 = 0x12;

export class BlockNotFoundError extends Error {
  constructor(readonly cid: string) {
    super(`block ${cid} not found`);
    this.name = 'BlockNotFoundError';
  }
}

/** A block whose bytes do not hash to its CID: the store returned something else. */
export class BlockCorruptError extends Error {
  constructor(readonly cid: string) {
    super(`block ${cid} does not match its CID`);
    this.name = 'BlockCorruptError';
  }
}

/** `bytes`, after checking that they hash to `cid` (sha2-256 CIDs; the profile makes no other). */
export function checkBlock(cid: CID, bytes: Uint8Array): Uint8Array {
  checkBlockParts(cid, [bytes]);
  return bytes;
}

/** The same for a block that arrived in pieces (hashed piece by piece: no copy into one buffer). */
export function checkBlockParts(cid: CID, parts: readonly Uint8Array[]): void {
  if (cid.multihash.code !== SHA2_256) return;
  const hash = createHash('sha256');
  for (const part of parts) hash.update(part);
  if (!hash.digest().equals(cid.multihash.digest)) throw new BlockCorruptError(cid.toString());
}

export const isMissing = (e: unknown) => {
  const name = (e as { name?: string })?.name;
  const status = (e as { $metadata?: { httpStatusCode?: number } })?.$metadata?.httpStatusCode;
  return name === 'NoSuchKey' || name === 'NotFound' || status === 404;
};

async function collect(bytes: Uint8Array | Iterable<Uint8Array> | AsyncIterable<Uint8Array>): Promise<Uint8Array> {
  if (bytes instanceof Uint8Array) return bytes;
  const parts: Uint8Array[] = [];
  for await (const b of bytes as AsyncIterable<Uint8Array>) parts.push(b);
  return parts.length === 1 ? parts[0]! : Buffer.concat(parts);
}

/** Where a listing starts (after this name; the first when absent) and its page size (S3's MaxKeys, 1,000 by default). */
export interface ListingFrom {
  after?: string;
  pageSize?: number;
}

/**
 * Content-addressed blocks as S3 objects `blocks/<cid>` — the slice of the interface-blockstore
 * API that ipfs-unixfs-importer (`put`) and -exporter (`get`) use, plus `has` and `delete`.
 * Every block read is hashed and compared with its CID, so a corrupted object is caught at the
 * block, not only by the file checksum.
 */
export class S3Blockstore {
  constructor(
    private readonly client: S3Client = defaultClient,
    private readonly bucket: string = defaultBucket,
    private readonly prefix = 'blocks/',
  ) {}

  key(cid: CID | string): string {
    return `${this.prefix}${cid.toString()}`;
  }

  async put(cid: CID, bytes: Uint8Array | Iterable<Uint8Array> | AsyncIterable<Uint8Array>): Promise<CID> {
    const body = await collect(bytes);
    await this.client.send(
      new PutObjectCommand({ Bucket: this.bucket, Key: this.key(cid), Body: body, ContentLength: body.length, ContentType: 'application/octet-stream' }),
    );
    return cid;
  }

  async *get(cid: CID): AsyncGenerator<Uint8Array> {
    yield await this.getBytes(cid);
  }

  async getBytes(cid: CID): Promise<Uint8Array> {
    let bytes: Uint8Array;
    try {
      const out = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: this.key(cid) }));
      bytes = await out.Body!.transformToByteArray();
    } catch (e) {
      if (isMissing(e)) throw new BlockNotFoundError(cid.toString());
      throw e;
    }
    return checkBlock(cid, bytes);
  }

  async has(cid: CID | string): Promise<boolean> {
    try {
      await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: this.key(cid) }));
      return true;
    } catch (e) {
      if (isMissing(e)) return false;
      throw e;
    }
  }

  async delete(cid: CID | string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: this.key(cid) }));
  }

  /** Every stored block (after `after`), a page (up to 1,000) at a time, with when it was last written. */
  async *listPages(from: ListingFrom = {}): AsyncGenerator<{ cid: string; lastModifiedMs: number }[]> {
    let token: string | undefined;
    do {
      const out = await this.client.send(
        new ListObjectsV2Command({
          Bucket: this.bucket,
          Prefix: this.prefix,
          ContinuationToken: token,
          ...(from.after && !token ? { StartAfter: this.prefix + from.after } : {}),
          MaxKeys: from.pageSize,
        }),
      );
      yield (out.Contents ?? []).flatMap((o) =>
        o.Key && o.LastModified ? [{ cid: o.Key.slice(this.prefix.length), lastModifiedMs: o.LastModified.getTime() }] : [],
      );
      token = out.IsTruncated ? out.NextContinuationToken : undefined;
    } while (token);
  }
}
