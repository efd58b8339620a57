import { DeleteObjectsCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { CID } from 'multiformats/cid';
import { BlockCorruptError, BlockNotFoundError, S3Blockstore } from './blockstore.ts';
import { storageConfig, type ReplicaTargetConfig } from './config.ts';

/**
 * The storage targets of replicated pins (REPLICA_TARGETS): independent failure domains, each an
 * S3-compatible endpoint and bucket. A replica of a root CID is every block of its DAG as objects
 * `replicas/<root>/<block>` — one prefix per pin, so releasing one never touches another pin's
 * blocks even when two DAGs share a block.
 */
export type BlockCheck = 'ok' | 'missing' | 'corrupt' | 'unreachable';

export class ReplicaTarget {
  readonly client: S3Client;
  constructor(readonly cfg: ReplicaTargetConfig) {
    const loopback = !!cfg.endpoint && /^https?:\/\/(127\.0\.0\.1|localhost)[:/]/.test(cfg.endpoint);
    this.client = new S3Client({
      region: cfg.region,
      // A target that is down must answer fast: the others carry on meanwhile.
      maxAttempts: 2,
      requestHandler: { connectionTimeout: 1_000, requestTimeout: 30_000 },
      ...(cfg.endpoint ? { endpoint: cfg.endpoint, forcePathStyle: true } : {}),
      ...(loopback ? { credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } } : {}),
    });
  }

  get name(): string {
    return this.cfg.name;
  }

  prefix(root: string): string {
    return `replicas/${root}/`;
  }

  store(root: string): S3Blockstore {
    return new S3Blockstore(this.client, this.cfg.bucket, this.prefix(root));
  }

  /** Reads a block back and checks it against its CID. */
  async check(root: string, block: string): Promise<{ state: BlockCheck; bytes?: Uint8Array }> {
    try {
      return { state: 'ok', bytes: await this.store(root).getBytes(CID.parse(block)) };
    } catch (e) {
      if (e instanceof BlockNotFoundError) return { state: 'missing' };
      if (e instanceof BlockCorruptError) return { state: 'corrupt' };
      return { state: 'unreachable' };
    }
  }

  /** Deletes every object of the replica of `root`. */
  async release(root: string): Promise<void> {
    let token: string | undefined;
    do {
      const out = await this.client.send(new ListObjectsV2Command({ Bucket: this.cfg.bucket, Prefix: this.prefix(root), ContinuationToken: token }));
      const keys = (out.Contents ?? []).flatMap((o) => (o.Key ? [{ Key: o.Key }] : []));
      if (keys.length) await this.client.send(new DeleteObjectsCommand({ Bucket: this.cfg.bucket, Delete: { Objects: keys, Quiet: true } }));
      token = out.IsTruncated ? out.NextContinuationToken : undefined;
    } while (token);
  }
}

/** Built once per cold start from REPLICA_TARGETS. */
export const replicaTargets: readonly ReplicaTarget[] = storageConfig.REPLICA_TARGETS.map((t) => new ReplicaTarget(t));

export function targetNamed(name: string): ReplicaTarget | undefined {
  return replicaTargets.find((t) => t.name === name);
}
