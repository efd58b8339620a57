import * as z from 'zod';
import { config as platform, readConfig } from '#lib/config.ts';

/**
 * Where a target's secret comes from, resolved when first needed (replica-credentials.ts), never
 * inline: an environment variable's name (local runs) or a Secrets Manager secret (AWS; cdk/replicas.ts
 * grants `secretsmanager:GetSecretValue` on exactly these ARNs).
 */
const secretArn = z.string().regex(/^arn:aws[a-z-]*:secretsmanager:[a-z0-9-]+:\d{12}:secret:.+$/, 'a Secrets Manager secret ARN');
const envName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,127}$/, 'an environment variable name');

const targetName = z.string().regex(/^[a-z0-9][a-z0-9-]{0,39}$/);

/** An S3-compatible endpoint and bucket; no endpoint = AWS S3 in `region`. */
export const s3TargetSchema = z.object({
  type: z.literal('s3'),
  name: targetName,
  endpoint: z.url().optional(),
  bucket: z.string().min(3).max(63),
  region: z.string().default('us-east-1'),
  /**
   * This target's own keys: `{accessKeyIdEnv, secretAccessKeyEnv}` names two environment
   * variables; `{secretArn}` a secret holding JSON `{"accessKeyId", "secretAccessKey"}`. Absent:
   * the function's own role (AWS buckets), or the local S3's fixed keys on loopback.
   */
  credentials: z.union([z.strictObject({ accessKeyIdEnv: envName, secretAccessKeyEnv: envName }), z.strictObject({ secretArn })]).optional(),
});

/** The Pinata adapter: a CAR per pin through Pinata's v3 API, blocks read back from its gateway (replica-target-pinata.ts). */
export const pinataTargetSchema = z.object({
  type: z.literal('pinata'),
  name: targetName,
  /** Gateway base URL (`https://<name>.mypinata.cloud`); blocks are read as `<gateway>/ipfs/<cid>`. */
  gateway: z.url(),
  apiUrl: z.url().default('https://api.pinata.cloud/v3'),
  uploadUrl: z.url().default('https://uploads.pinata.cloud/v3'),
  /** The API JWT: `{env}` names an environment variable; `{secretArn}` a secret whose string is the JWT. */
  jwt: z.union([z.strictObject({ env: envName }), z.strictObject({ secretArn })]),
});

/** A target without `type` is S3 (the form REPLICA_TARGETS had before Pinata targets). */
export const replicaTargetSchema = z.preprocess(
  (v) => (v && typeof v === 'object' && !Array.isArray(v) && !('type' in v) ? { ...v, type: 's3' } : v),
  z.discriminatedUnion('type', [s3TargetSchema, pinataTargetSchema]),
);
export type ReplicaTargetConfig = z.infer<typeof replicaTargetSchema>;
export type S3TargetConfig = z.infer<typeof s3TargetSchema>;
export type PinataTargetConfig = z.infer<typeof pinataTargetSchema>;
export type SecretSource = { env: string } | { secretArn: string };

/**
 * Storage settings, read once at cold start (a bad value stops the function before it serves).
 * Defaults are the embedded local setup: blocks in the project's bucket, share page under the API.
 */
const schema = z
  .object({
    /** Where content is pinned: `s3` (blocks in the project's bucket) or `pinata`. */
    PINNING_ADAPTER: z.enum(['s3', 'pinata']).default('s3'),
    PINATA_JWT: z.string().optional(),
    /** Gateway domain used to read content back from Pinata (e.g. `example.mypinata.cloud`). */
    PINATA_GATEWAY: z.string().optional(),
    /** Pinata API endpoints; configurable so tests talk to a loopback fake. */
    PINATA_API_URL: z.url().default('https://api.pinata.cloud/v3'),
    PINATA_UPLOAD_URL: z.url().default('https://uploads.pinata.cloud/v3'),
    /** Page that resolves share tokens; the share URL is `<page>/<token>`. */
    SHARE_PAGE_URL: z.url().optional(),
    /**
     * Downloads larger than this answer 302 to a presigned GET. 4 MiB, not 5 MB: Lambda's 6 MB
     * response cap applies to the base64 body, and 5 MB of bytes is 6.7 MB of base64.
     */
    DOWNLOAD_REDIRECT_BYTES: z.coerce
      .number()
      .int()
      .nonnegative()
      .default(4 * 1024 * 1024),
    /** Lifetime of presigned URLs (upload PUT and download GET), seconds. */
    PRESIGN_SECONDS: z.coerce.number().int().min(60).max(3600).default(900),
    /**
     * Storage targets of replicated pins, independent failure domains: a JSON array of S3
     * targets `{type?: 's3', name, endpoint?, bucket, region?, credentials?}` and Pinata targets
     * `{type: 'pinata', name, gateway, apiUrl?, uploadUrl?, jwt}` (schemas above; docs/storage.md).
     * `npm start` sets three local S3 ones. Empty: replicated pinning is unavailable.
     */
    REPLICA_TARGETS: z
      .string()
      .default('[]')
      .transform((s, ctx) => {
        try {
          return JSON.parse(s) as unknown;
        } catch {
          ctx.addIssue({ code: 'custom', message: 'REPLICA_TARGETS: not JSON' });
          return z.NEVER;
        }
      })
      .pipe(z.array(replicaTargetSchema).refine((a) => new Set(a.map((t) => t.name)).size === a.length, 'REPLICA_TARGETS: names must be unique')),
    /** SQS queue of the replica worker (AWS); unset: the in-process queue of the local runtime. */
    REPLICA_QUEUE_URL: z.string().optional(),
    /** SQS queue of the audit's per-pin jobs (AWS; required with REPLICA_QUEUE_URL). */
    REPLICA_AUDIT_QUEUE_URL: z.string().optional(),
    /** A pin's term: `expiresAt` is this far after the last pin request (renewal). */
    REPLICA_TERM_DAYS: z.coerce.number().int().min(1).max(3650).default(30),
    /** Blocks an audit reads back from each replica. */
    REPLICA_AUDIT_SAMPLE: z.coerce.number().int().min(1).max(1000).default(8),
  })
  .transform((c) => ({
    ...c,
    SHARE_PAGE_URL: (c.SHARE_PAGE_URL ?? `${platform.PUBLIC_BASE_URL ?? 'http://localhost:3000'}/share`).replace(/\/+$/, ''),
  }))
  .refine((c) => c.PINNING_ADAPTER !== 'pinata' || !!c.PINATA_JWT, { message: 'PINATA_JWT is required when PINNING_ADAPTER=pinata', path: ['PINATA_JWT'] })
  .refine((c) => !c.REPLICA_QUEUE_URL === !c.REPLICA_AUDIT_QUEUE_URL, {
    message: 'REPLICA_QUEUE_URL and REPLICA_AUDIT_QUEUE_URL are set together (SQS) or not at all (the in-process queues)',
    path: ['REPLICA_AUDIT_QUEUE_URL'],
  });

export type StorageConfig = z.infer<typeof schema>;

export const readStorageConfig = (env: NodeJS.ProcessEnv = process.env): StorageConfig => readConfig(schema, env);

export const storageConfig: StorageConfig = readStorageConfig();
