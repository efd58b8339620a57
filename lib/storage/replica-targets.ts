import { DeleteObjectsCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { CID } from 'multiformats/cid';
import { BlockCorruptError, BlockNotFoundError, S3Blockstore } from './blockstore.ts';
import { storageConfig, type ReplicaTargetConfig, type S3TargetConfig } from './config.ts';
import { resolveS3Keys, SECRET_CACHE_MS } from './replica-credentials.ts';
import { PinataReplicaTarget } from './replica-target-pinata.ts';
import { TargetFailure, type BlockCheckResult, type CopyJournal, type CopySource, type ReplicaTarget } from './replica-target-port.ts';

export { TargetFailure, type BlockCheck, type BlockCheckResult, type CopyJournal, type CopySource, type ReplicaTarget } from './replica-target-port.ts';

/**
 * The storage targets of replicated pins (REPLICA_TARGETS): independent failure domains, each an
 * S3-compatible endpoint and bucket (here) or the Pinata adapter (replica-target-pinata.ts), both
 * behind the ReplicaTarget port (replica-target-port.ts).
 */

/** S3 errors that mean the keys were refused, not that the target is down: retrying will not help. */
const REFUSED = new Set(['InvalidAccessKeyId', 'SignatureDoesNotMatch', 'AccessDenied', 'MissingSecretError']);

/**
 * An S3-compatible target. A replica of a root CID is every block of its DAG as objects
 * `replicas/<root>/<block>` — one prefix per pin, so releasing one never touches another pin's
 * blocks even when two DAGs share a block. Copies go block by block under the journal, so a
 * worker that dies resumes after the last block it wrote.
 */
export class S3ReplicaTarget implements ReplicaTarget {
  readonly kind = 's3' as const;
  readonly client: S3Client;
  constructor(readonly cfg: S3TargetConfig) {
    const loopback = !!cfg.endpoint && /^https?:\/\/(127\.0\.0\.1|localhost)[:/]/.test(cfg.endpoint);
    const creds = cfg.credentials;
    this.client = new S3Client({
      region: cfg.region,
      // A target that is down must answer fast: the others carry on meanwhile.
      maxAttempts: 2,
      requestHandler: { connectionTimeout: 1_000, requestTimeout: 30_000 },
      ...(cfg.endpoint ? { endpoint: cfg.endpoint, forcePathStyle: true } : {}),
      // Its own keys, read when the first request signs; the SDK keeps them until `expiration`, then
      // asks again (a rotated secret is picked up). Else the role's keys, or the local S3's.
      ...(creds
        ? { credentials: async () => ({ ...(await resolveS3Keys(creds)), expiration: new Date(Date.now() + SECRET_CACHE_MS) }) }
        : loopback
          ? { credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } }
          : {}),
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

  private failure(e: unknown, doing: string): TargetFailure {
    const name = (e as Error)?.name || 'error';
    const status = (e as { $metadata?: { httpStatusCode?: number } })?.$metadata?.httpStatusCode;
    if (REFUSED.has(name) || status === 403) return new TargetFailure(this.name, 'failed', `s3 credentials refused (${name}) ${doing}`);
    return new TargetFailure(this.name, 'unreachable', `${name} ${doing}`);
  }

  async copy(root: string, src: CopySource, journal: CopyJournal): Promise<void> {
    const store = this.store(root);
    for (let i = await journal.done(); i < src.blocks.length; i++) {
      const bytes = await src.read(src.blocks[i]!);
      try {
        await store.put(CID.parse(src.blocks[i]!), bytes);
      } catch (e) {
        throw this.failure(e, 'writing a block');
      }
      await journal.record(i + 1);
    }
  }

  async check(root: string, block: string): Promise<BlockCheckResult> {
    try {
      return { state: 'ok', bytes: await this.store(root).getBytes(CID.parse(block)) };
    } catch (e) {
      if (e instanceof BlockNotFoundError) return { state: 'missing' };
      if (e instanceof BlockCorruptError) return { state: 'corrupt' };
      return { state: 'unreachable', reason: this.failure(e, 'reading a block').message };
    }
  }

  readBlock(root: string, block: CID): Promise<Uint8Array> {
    return this.store(root).getBytes(block);
  }

  async repair(root: string, damaged: readonly string[], src: CopySource): Promise<void> {
    const store = this.store(root);
    for (const block of damaged) {
      const bytes = await src.read(block);
      try {
        await store.put(CID.parse(block), bytes);
      } catch (e) {
        throw this.failure(e, 'writing a block');
      }
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

export function replicaTargetFrom(cfg: ReplicaTargetConfig): ReplicaTarget {
  return cfg.type === 'pinata' ? new PinataReplicaTarget(cfg) : new S3ReplicaTarget(cfg);
}

/** Built once per cold start from REPLICA_TARGETS (no secret is read until a target is used). */
export const replicaTargets: readonly ReplicaTarget[] = storageConfig.REPLICA_TARGETS.map(replicaTargetFrom);

export function targetNamed(name: string): ReplicaTarget | undefined {
  return replicaTargets.find((t) => t.name === name);
}
