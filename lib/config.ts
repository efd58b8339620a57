import * as z from 'zod';

/**
 * Configuration is read from the environment once, at cold start, and checked with zod: a bad
 * value stops the function before it serves anything (fail fast), and the message names the
 * variable, never its value. Concerns with settings of their own call `readConfig` with their own
 * schema, in the shape docs/architecture.md gives (## The file shape of a domain, settings).
 */
export function readConfig<S extends z.ZodType>(schema: S, env: NodeJS.ProcessEnv = process.env): z.infer<S> {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.') || '(env)'}: ${i.message}`).join('; ');
    throw new Error(`invalid configuration: ${problems}`);
  }
  return parsed.data;
}

const list = z
  .string()
  .optional()
  .transform((s) =>
    s
      ? s
          .split(',')
          .map((x) => x.trim())
          .filter(Boolean)
      : [],
  );

const bool = (fallback: boolean) =>
  z
    .enum(['true', 'false', '1', '0'])
    .optional()
    .transform((v) => (v === undefined ? fallback : v === 'true' || v === '1'));

const platformSchema = z
  .object({
    SERVICE_NAME: z.string().default('shroud'),
    STAGE: z
      .string()
      .regex(/^[a-z0-9-]{1,20}$/, 'lower-case letters, digits and hyphens, at most 20')
      .default('local'),
    AWS_REGION: z.string().default('us-east-1'),
    TABLE_NAME: z.string().optional(),
    BUCKET_NAME: z.string().optional(),
    /** Set by the local runtime: DynamoDB Local and the local S3 on loopback. Unset on AWS. */
    DYNAMODB_ENDPOINT: z.url().optional(),
    S3_ENDPOINT: z.url().optional(),
    /** Origins allowed to call the API from a browser (CORS, and the Origin check of writes). */
    CORS_ORIGINS: list,
    /** The public base URL of the API, used to build absolute links (share pages, OAuth callbacks). */
    PUBLIC_BASE_URL: z.url().optional(),
    /** `Secure` on cookies: on unless the API is served over plain http (localhost). */
    COOKIE_SECURE: bool(true),
    /** Multiplies every rate limit (load tests and benchmarks only; 1 in production). */
    RATE_LIMIT_MULTIPLIER: z.coerce.number().positive().default(1),
    CHAIN_A_NETWORK: z.string().default('localnet'),
    CHAIN_B_NETWORK: z.string().default('localnet'),
  })
  .transform((c) => ({
    ...c,
    TABLE_NAME: c.TABLE_NAME ?? `${c.SERVICE_NAME}-${c.STAGE}`,
    BUCKET_NAME: c.BUCKET_NAME ?? `${c.SERVICE_NAME}-${c.STAGE}-blocks`,
  }));

export type PlatformConfig = z.infer<typeof platformSchema>;

export const readPlatformConfig = (env: NodeJS.ProcessEnv = process.env): PlatformConfig => readConfig(platformSchema, env);

export const config: PlatformConfig = readPlatformConfig();

/**
 * How every AWS SDK client talks to its service: a bounded wait to connect and for each response,
 * and at most three attempts with the SDK's standard retry (exponential backoff with full jitter),
 * so that a dependency that is down answers 503 in seconds instead of hanging the function.
 */
export const dependencyClientSettings = (requestTimeoutMs: number) =>
  ({
    maxAttempts: 3,
    retryMode: 'standard',
    requestHandler: { connectionTimeout: 1_000, requestTimeout: requestTimeoutMs },
  }) as const;
