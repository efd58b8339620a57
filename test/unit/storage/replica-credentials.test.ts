import { createServer, type Server } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureLocalBucket, startS3Local, type S3Local } from '#lib/local/s3-local.ts';

/**
 * Per-target credentials: the REPLICA_TARGETS schema (both kinds, the old form without `type`,
 * no inline secrets), secrets from environment variables and from a loopback Secrets Manager
 * (the real SDK, pointed at it by AWS_ENDPOINT_URL_SECRETS_MANAGER), and an S3 target signing
 * with its own keys against a local S3 that checks them.
 */
const ARN = 'arn:aws:secretsmanager:us-east-1:123456789012:secret:shroud/replica-AbCdEf';
const S3_ARN = 'arn:aws:secretsmanager:us-east-1:123456789012:secret:shroud/s3-keys-AbCdEf';
const secretValues = new Map<string, string>([
  [ARN, 'jwt-from-secrets-manager'],
  [S3_ARN, JSON.stringify({ accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' })],
]);
const asked: string[] = [];
let sm: Server;
let s3: S3Local;
let dir: string;
let creds: typeof import('#lib/storage/replica-credentials.ts');
let config: typeof import('#lib/storage/config.ts');
let targets: typeof import('#lib/storage/replica-targets.ts');

beforeAll(async () => {
  sm = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const target = String(req.headers['x-amz-target']);
    const { SecretId } = JSON.parse(Buffer.concat(chunks).toString()) as { SecretId: string };
    asked.push(`${target} ${SecretId}`);
    const value = secretValues.get(SecretId);
    res.writeHead(value ? 200 : 400, { 'content-type': 'application/x-amz-json-1.1' });
    res.end(
      JSON.stringify(
        value
          ? { ARN: SecretId, Name: 'shroud/replica', SecretString: value }
          : { __type: 'ResourceNotFoundException', message: "Secrets Manager can't find the specified secret." },
      ),
    );
  });
  await new Promise<void>((ok) => sm.listen(0, '127.0.0.1', ok));
  process.env.AWS_ENDPOINT_URL_SECRETS_MANAGER = `http://127.0.0.1:${(sm.address() as { port: number }).port}`;
  process.env.AWS_ACCESS_KEY_ID ??= 'test';
  process.env.AWS_SECRET_ACCESS_KEY ??= 'test';
  dir = mkdtempSync(join(tmpdir(), 'shroud-creds-'));
  s3 = await startS3Local(dir);
  await ensureLocalBucket(s3.endpoint, 'keyed-replica');
  creds = await import('#lib/storage/replica-credentials.ts');
  config = await import('#lib/storage/config.ts');
  targets = await import('#lib/storage/replica-targets.ts');
});
afterAll(async () => {
  await new Promise<void>((ok) => sm?.close(() => ok()));
  await s3?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
  delete process.env.AWS_ENDPOINT_URL_SECRETS_MANAGER;
});

const parse = (list: unknown[]) => config.readStorageConfig({ REPLICA_TARGETS: JSON.stringify(list) }).REPLICA_TARGETS;

describe('REPLICA_TARGETS', () => {
  it('reads S3 targets with or without `type`, and Pinata targets with their defaults', () => {
    const out = parse([
      { name: 'old', bucket: 'b-old' },
      { type: 's3', name: 'keyed', endpoint: 'https://s3.example.com', bucket: 'b-k', credentials: { secretArn: S3_ARN } },
      { type: 'pinata', name: 'pin', gateway: 'https://x.mypinata.cloud', jwt: { env: 'PINATA_REPLICA_JWT' } },
    ]);
    expect(out[0]).toEqual({ type: 's3', name: 'old', bucket: 'b-old', region: 'us-east-1' });
    expect(out[1]).toMatchObject({ type: 's3', credentials: { secretArn: S3_ARN } });
    expect(out[2]).toEqual({
      type: 'pinata',
      name: 'pin',
      gateway: 'https://x.mypinata.cloud',
      apiUrl: 'https://api.pinata.cloud/v3',
      uploadUrl: 'https://uploads.pinata.cloud/v3',
      jwt: { env: 'PINATA_REPLICA_JWT' },
    });
  });

  it('refuses inline secrets, a Pinata target without jwt or gateway, an unknown type; the error names no value', () => {
    const bad = (t: unknown) => () => parse([t]);
    expect(bad({ type: 'pinata', name: 'p', gateway: 'https://g.example', jwt: 'eyJhbGciOi.secret' })).toThrow(/REPLICA_TARGETS/);
    expect(bad({ type: 'pinata', name: 'p', gateway: 'https://g.example', jwt: { env: 'X', value: 'eyJ.secret' } })).toThrow(/REPLICA_TARGETS/);
    expect(bad({ type: 'pinata', name: 'p', jwt: { env: 'X' } })).toThrow(/gateway/);
    expect(bad({ name: 's', bucket: 'bbb', credentials: { accessKeyId: 'AKIA-SECRET', secretAccessKey: 'SECRET' } })).toThrow(/credentials/);
    expect(bad({ type: 'ipfs', name: 's', bucket: 'bbb' })).toThrow(/REPLICA_TARGETS/);
    expect(bad({ name: 's', bucket: 'bbb', credentials: { secretArn: 'not-an-arn' } })).toThrow(/Secrets Manager secret ARN/);
    try {
      parse([{ name: 's', bucket: 'bbb', credentials: { accessKeyId: 'AKIA-SECRET', secretAccessKey: 'SECRET-VALUE' } }]);
    } catch (e) {
      expect((e as Error).message).not.toMatch(/AKIA-SECRET|SECRET-VALUE/);
    }
  });
});

describe('secrets of replica targets', () => {
  it('from an environment variable; an unset one is named, its value never', async () => {
    process.env.TEST_REPLICA_SECRET = 'from-env';
    expect(await creds.resolveSecret({ env: 'TEST_REPLICA_SECRET' })).toBe('from-env');
    await expect(creds.resolveSecret({ env: 'TEST_REPLICA_UNSET' })).rejects.toThrow('environment variable TEST_REPLICA_UNSET is not set');
  });

  it('from Secrets Manager, read once and cached; forgotten after a refusal, read again', async () => {
    asked.length = 0;
    expect(await creds.resolveSecret({ secretArn: ARN })).toBe('jwt-from-secrets-manager');
    expect(await creds.resolveSecret({ secretArn: ARN })).toBe('jwt-from-secrets-manager');
    expect(asked).toEqual([`secretsmanager.GetSecretValue ${ARN}`]);
    creds.forgetSecret({ secretArn: ARN });
    secretValues.set(ARN, 'rotated-jwt');
    expect(await creds.resolveSecret({ secretArn: ARN })).toBe('rotated-jwt');
    expect(asked).toHaveLength(2);
    const missing = 'arn:aws:secretsmanager:us-east-1:123456789012:secret:nope-123456';
    await expect(creds.resolveSecret({ secretArn: missing })).rejects.toThrow(/can't find/);
  });

  it('an S3 target signs with its own keys (env names or a secret); wrong keys → failed "s3 credentials refused"', async () => {
    const block = new TextEncoder().encode(`block ${randomBytes(8).toString('hex')}`);
    const { cidOf } = await import('#lib/storage/cid.ts');
    const cid = await cidOf(block);
    const src = { blocks: [cid], read: async () => block };
    const journal = () => {
      let n = 0;
      return { done: async () => n, record: async (d: number) => void (n = d) };
    };
    const make = (c: unknown) =>
      targets.replicaTargetFrom(
        config.readStorageConfig({ REPLICA_TARGETS: JSON.stringify([{ name: 'keyed', endpoint: s3.endpoint, bucket: 'keyed-replica', credentials: c }]) })
          .REPLICA_TARGETS[0]!,
      );

    process.env.TEST_S3_KEY_ID = 'S3RVER';
    process.env.TEST_S3_SECRET = 'S3RVER';
    const byEnv = make({ accessKeyIdEnv: 'TEST_S3_KEY_ID', secretAccessKeyEnv: 'TEST_S3_SECRET' });
    await byEnv.copy('root-a', src, journal());
    expect((await byEnv.check('root-a', cid)).state).toBe('ok');

    const bySecret = make({ secretArn: S3_ARN });
    await bySecret.copy('root-b', src, journal());
    expect((await bySecret.check('root-b', cid)).state).toBe('ok');

    process.env.TEST_S3_BAD_ID = 'NOT-A-KEY';
    process.env.TEST_S3_BAD_SECRET = 'wrong-secret-value';
    const wrong = make({ accessKeyIdEnv: 'TEST_S3_BAD_ID', secretAccessKeyEnv: 'TEST_S3_BAD_SECRET' });
    const err = (await wrong.copy('root-c', src, journal()).catch((e: unknown) => e)) as Error & { state?: string };
    expect(err).toMatchObject({ name: 'TargetFailure', state: 'failed' });
    expect(err.message).toMatch(/^keyed: s3 credentials refused \(\w+\) writing a block$/);
    expect(err.message).not.toContain('wrong-secret-value');

    // A known key with the wrong secret: the local S3 checks V4 signatures as S3 does.
    process.env.TEST_S3_BAD_SECRET_ID = 'S3RVER';
    const badSecret = make({ accessKeyIdEnv: 'TEST_S3_BAD_SECRET_ID', secretAccessKeyEnv: 'TEST_S3_BAD_SECRET' });
    const refused = (await badSecret.copy('root-d', src, journal()).catch((e: unknown) => e)) as Error & { state?: string };
    expect(refused).toMatchObject({ name: 'TargetFailure', state: 'failed' });
    expect(refused.message).toBe('keyed: s3 credentials refused (SignatureDoesNotMatch) writing a block');
  });
});
