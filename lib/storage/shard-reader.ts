import { GetObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { CID } from 'multiformats/cid';
import { BlockNotFoundError, checkBlock, checkBlockParts, isMissing, S3Blockstore } from './blockstore.ts';
import { objectKey, parseShardIndex, shardIndexKey, type ShardIndex } from './shards.ts';
import { s3BodyChunks } from './streams.ts';

/** Blocks this close together in an object are read with one GET (the gap is read and dropped). */
const MAX_GAP = 64 * 1024;

/** A block checked against its CID, in the pieces it was read in. */
export interface StoredBlock {
  cid: CID;
  length: number;
  parts: Uint8Array[];
}

interface Run {
  /** The object's number in the index. */
  shard: number;
  start: number;
  end: number;
  blocks: { cid: CID; offset: number; length: number }[];
}

/**
 * Reads one upload's blocks from its objects (the data object, the CAR shards): `getBytes` by a ranged GET of the block alone,
 * `blocks` by ranged GETs that cover many blocks at once. Every block is checked against its CID
 * before it is handed on. A block the index does not list is looked for in the per-block layout
 * (`blocks/<cid>`, written before shards existed).
 */
export class ShardedBlockstore {
  private index?: Promise<ShardIndex>;

  constructor(
    private readonly client: S3Client,
    private readonly bucket: string,
    readonly uploadId: string,
    private readonly legacy: S3Blockstore,
  ) {}

  loadIndex(): Promise<ShardIndex> {
    this.index ??= this.readIndex();
    this.index.catch(() => (this.index = undefined)); // a failed read is tried again next time
    return this.index;
  }

  private async readIndex(): Promise<ShardIndex> {
    try {
      const out = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: shardIndexKey(this.uploadId) }));
      return parseShardIndex(await out.Body!.transformToString());
    } catch (e) {
      if (isMissing(e)) throw new BlockNotFoundError(`index of upload ${this.uploadId}`);
      throw e;
    }
  }

  async has(cid: CID | string): Promise<boolean> {
    return cid.toString() in (await this.loadIndex()).blocks || this.legacy.has(cid);
  }

  async *get(cid: CID): AsyncGenerator<Uint8Array> {
    yield await this.getBytes(cid);
  }

  async getBytes(cid: CID): Promise<Uint8Array> {
    const index = await this.loadIndex();
    const at = index.blocks[cid.toString()];
    if (!at) return this.legacy.getBytes(cid);
    const [object, offset, length] = at;
    if (!length) return checkBlock(cid, new Uint8Array(0));
    const out = await this.range(objectKey(this.uploadId, index.version, object), offset, offset + length);
    const bytes = await out.Body!.transformToByteArray();
    if (bytes.length !== length) throw new BlockNotFoundError(cid.toString());
    return checkBlock(cid, bytes);
  }

  private async range(key: string, start: number, end: number) {
    try {
      return await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key, Range: `bytes=${start}-${end - 1}` }));
    } catch (e) {
      if (isMissing(e)) throw new BlockNotFoundError(key);
      throw e;
    }
  }

  /**
   * The blocks `cids`, in that order, each checked before it is yielded: neighbours in a shard
   * come from one ranged GET, and the next range is requested while this one is read. A block
   * comes as the pieces the response brought (`parts`, in order), not copied into one buffer.
   */
  async *blocks(cids: readonly CID[]): AsyncGenerator<StoredBlock> {
    const index = await this.loadIndex();
    const runs: (Run | CID)[] = [];
    for (const cid of cids) {
      const at = index.blocks[cid.toString()];
      if (!at) {
        runs.push(cid);
        continue;
      }
      const [shard, offset, length] = at;
      const last = runs.at(-1);
      if (last && !(last instanceof CID) && last.shard === shard && offset >= last.end && offset - last.end <= MAX_GAP) {
        last.blocks.push({ cid, offset, length });
        last.end = offset + length;
      } else runs.push({ shard, start: offset, end: offset + length, blocks: [{ cid, offset, length }] });
    }
    const request = (r: Run | CID | undefined) => {
      if (!r || r instanceof CID || r.end === r.start) return undefined;
      const p = this.range(objectKey(this.uploadId, index.version, r.shard), r.start, r.end);
      p.catch(() => undefined); // awaited below; a read-ahead that fails must not go unhandled
      return p;
    };
    let next = request(runs[0]);
    try {
      for (let i = 0; i < runs.length; i++) {
        const run = runs[i]!;
        const current = next;
        next = request(runs[i + 1]);
        if (run instanceof CID) {
          const bytes = await this.legacy.getBytes(run);
          yield { cid: run, length: bytes.length, parts: [bytes] };
        } else yield* readRun(run, current && (await current).Body);
      }
    } finally {
      // Stopped early (a bad block, the reader gone): drop the range already requested.
      next?.then(
        (o) => (o.Body as { destroy?: () => void } | undefined)?.destroy?.(),
        () => undefined,
      );
    }
  }
}

/** Cuts a run's blocks out of its ranged body, checking each against its CID. */
async function* readRun(run: Run, body: Parameters<typeof s3BodyChunks>[0] | undefined): AsyncGenerator<StoredBlock> {
  let pos = run.start;
  let b = 0;
  let parts: Uint8Array[] = [];
  let have = 0;
  const done = function* (): Generator<StoredBlock> {
    // Zero-length blocks take no bytes: they are complete as soon as their turn comes.
    while (b < run.blocks.length && run.blocks[b]!.length === 0) {
      const { cid } = run.blocks[b++]!;
      checkBlockParts(cid, []);
      yield { cid, length: 0, parts: [] };
    }
  };
  yield* done();
  if (body) {
    for await (let chunk of s3BodyChunks(body)) {
      while (chunk.length && b < run.blocks.length) {
        const block = run.blocks[b]!;
        if (pos < block.offset) {
          const skip = Math.min(block.offset - pos, chunk.length);
          pos += skip;
          chunk = chunk.subarray(skip);
          continue;
        }
        const take = Math.min(block.length - have, chunk.length);
        parts.push(chunk.subarray(0, take));
        have += take;
        pos += take;
        chunk = chunk.subarray(take);
        if (have === block.length) {
          checkBlockParts(block.cid, parts);
          yield { cid: block.cid, length: have, parts };
          parts = [];
          have = 0;
          b++;
          yield* done();
        }
      }
    }
  }
  if (b < run.blocks.length) throw new BlockNotFoundError(run.blocks[b]!.cid.toString()); // the shard is shorter than its index says
}
