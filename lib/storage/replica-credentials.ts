import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { config } from '#lib/config.ts';
import type { SecretSource } from './config.ts';

/**
 * The secrets of replica targets (REPLICA_TARGETS: a Pinata JWT, an S3 target's own keys),
 * resolved when a target first needs them — not at cold start, so a function that never touches
 * a target never reads its secret — from an environment variable (local runs) or AWS Secrets
 * Manager. A value is kept for SECRET_CACHE_MS (one read per warm instance, not one per request) and
 * dropped early by `forgetSecret` when the service refused it, so a rotated secret is picked up on
 * the next call. Values are never logged: errors name the variable or the secret's ARN only.
 */
export const SECRET_CACHE_MS = 10 * 60_000;

/** One client per region, kept for the instance's life (the function's own region built at load; building does no I/O). */
const clients = new Map<string, SecretsManagerClient>([[config.AWS_REGION, new SecretsManagerClient({ region: config.AWS_REGION, maxAttempts: 3 })]]);
const clientFor = (region: string) => {
  let c = clients.get(region);
  if (!c) clients.set(region, (c = new SecretsManagerClient({ region, maxAttempts: 3 })));
  return c;
};

const cache = new Map<string, { value: Promise<string>; until: number }>();

const keyOf = (src: SecretSource) => ('env' in src ? `env:${src.env}` : `arn:${src.secretArn}`);

export class MissingSecretError extends Error {
  constructor(what: string) {
    super(what);
    this.name = 'MissingSecretError';
  }
}

async function read(src: SecretSource): Promise<string> {
  if ('env' in src) {
    const v = process.env[src.env];
    if (!v) throw new MissingSecretError(`environment variable ${src.env} is not set`);
    return v;
  }
  // The region of the ARN, so a secret kept in another region than the function's still resolves.
  const out = await clientFor(src.secretArn.split(':')[3] || config.AWS_REGION).send(new GetSecretValueCommand({ SecretId: src.secretArn }));
  if (!out.SecretString) throw new MissingSecretError(`secret ${src.secretArn} has no string value`);
  return out.SecretString;
}

/** The secret's string value (cached; concurrent callers share one read). */
export function resolveSecret(src: SecretSource): Promise<string> {
  const key = keyOf(src);
  const hit = cache.get(key);
  if (hit && hit.until > Date.now()) return hit.value;
  const value = read(src);
  cache.set(key, { value, until: Date.now() + SECRET_CACHE_MS });
  value.catch(() => cache.delete(key)); // a failed read is not kept
  return value;
}

/** After the service refused the value (HTTP 401): the next call reads it again. */
export function forgetSecret(src: SecretSource): void {
  cache.delete(keyOf(src));
}

/** An S3 target's own keys: two environment variables, or a secret holding JSON `{accessKeyId, secretAccessKey}`. */
export async function resolveS3Keys(
  creds: { accessKeyIdEnv: string; secretAccessKeyEnv: string } | { secretArn: string },
): Promise<{ accessKeyId: string; secretAccessKey: string }> {
  if ('accessKeyIdEnv' in creds) {
    const [accessKeyId, secretAccessKey] = await Promise.all([resolveSecret({ env: creds.accessKeyIdEnv }), resolveSecret({ env: creds.secretAccessKeyEnv })]);
    return { accessKeyId, secretAccessKey };
  }
  const raw = await resolveSecret(creds);
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new MissingSecretError(`secret ${creds.secretArn} is not JSON {"accessKeyId", "secretAccessKey"}`);
  }
  const { accessKeyId, secretAccessKey } = (parsed ?? {}) as Record<string, unknown>;
  if (typeof accessKeyId !== 'string' || typeof secretAccessKey !== 'string') {
    throw new MissingSecretError(`secret ${creds.secretArn} lacks accessKeyId or secretAccessKey`);
  }
  return { accessKeyId, secretAccessKey };
}
