import * as z from 'zod';
import { config as platform, readConfig } from '#lib/config.ts';

export const replicaTargetSchema = z.object({
  name: z.string().regex(/^[a-z0-9][a-z0-9-]{0,39}$/),
  endpoint: z.url().optional(),
  bucket: z.string().min(3).max(63),
  region: z.string().default('us-east-1'),
});
export type ReplicaTargetConfig = z.infer<typeof replicaTargetSchema>;

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
    DOWNLOAD_REDIRECT_BYTES: z.coerce.number().int().nonnegative().default(4 * 1024 * 1024),
    /** Lifetime of presigned URLs (upload PUT and download GET), seconds. */
    PRESIGN_SECONDS: z.coerce.number().int().min(60).max(3600).default(900),
    /**
     * Storage targets of replicated pins, independent failure domains: a JSON array of
     * `{name, endpoint?, bucket, region?}` (S3-compatible; no endpoint = AWS S3 in `region`).
     * `npm start` sets three local ones. Empty: replicated pinning is unavailable.
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
    /** A pin's term: `expiresAt` is this far after the last pin request (renewal). */
    REPLICA_TERM_DAYS: z.coerce.number().int().min(1).max(3650).default(30),
    /** Blocks an audit reads back from each replica. */
    REPLICA_AUDIT_SAMPLE: z.coerce.number().int().min(1).max(1000).default(8),
  })
  .transform((c) => ({
    ...c,
    SHARE_PAGE_URL: (c.SHARE_PAGE_URL ?? `${platform.PUBLIC_BASE_URL ?? 'http://localhost:3000'}/share`).replace(/\/+$/, ''),
  }))
  .refine((c) => c.PINNING_ADAPTER !== 'pinata' || !!c.PINATA_JWT, { message: 'PINATA_JWT is required when PINNING_ADAPTER=pinata', path: ['PINATA_JWT'] });

export type StorageConfig = z.infer<typeof schema>;

export const storageConfig: StorageConfig = readConfig(schema);

/** For tests that build adapters with their own settings. */
export const readStorageConfig = (env: NodeJS.ProcessEnv): StorageConfig => readConfig(schema, env);
