import { createHash, randomUUID } from 'node:crypto';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { passwordProof } from '#lib/client/password-proof.ts';
import type { HttpClient, TestRuntime } from './runtime.ts';

/** A client signed in as `userId` without the identity routes: a session made in-process. */
export async function signedIn(rt: TestRuntime, userId = randomUUID()): Promise<HttpClient & { userId: string }> {
  const { createSession } = await import('#lib/data/sessions.ts');
  const { id } = await createSession(userId, 'password');
  const client = rt.client() as HttpClient & { userId: string };
  client.jar.set('shroud_session', id);
  client.userId = userId;
  return client;
}

export const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

/** A proof of `password` for a fixed salt, made once per (password, salt). */
const proofs = new Map<string, ReturnType<typeof passwordProof>>();
export function proofOf(password: string, salt = 12345n) {
  const k = `${password}\u0000${salt}`;
  if (!proofs.has(k)) proofs.set(k, passwordProof(password, salt));
  return proofs.get(k)!;
}

export interface UploadParts {
  file?: { bytes: Uint8Array; name?: string };
  fields?: Record<string, string>;
  /** Put the file part before the text parts (the server must verify the proof first anyway). */
  fileFirst?: boolean;
}

export function form({ file, fields = {}, fileFirst }: UploadParts): FormData {
  const f = new FormData();
  const addFile = () => file && f.append('file', new Blob([file.bytes as BlobPart]), file.name ?? 'cipher.bin');
  if (fileFirst) addFile();
  for (const [k, v] of Object.entries(fields)) f.append(k, v);
  if (!fileFirst) addFile();
  return f;
}

/** Variant A's parts for `bytes` under `password`. */
export async function partsA(bytes: Uint8Array, password = 'pw-alpha', salt?: bigint) {
  const p = await proofOf(password, salt);
  return {
    proof: JSON.stringify(p.proof),
    publicSignals: JSON.stringify(p.publicSignals),
    commitment: p.commitment,
    checksum: `sha256:${sha256(bytes)}`,
  };
}

export async function partsB(password = 'pw-alpha', salt?: bigint) {
  const p = await proofOf(password, salt);
  return {
    proof: JSON.stringify(p.proof),
    publicSignals: JSON.stringify(p.publicSignals),
    commitment: p.commitment,
    iv: Buffer.from('0123456789ab').toString('base64'),
    salt: Buffer.from('saltsaltsaltsalt').toString('base64'),
  };
}

export function upload(client: HttpClient, parts: UploadParts) {
  return client.request('POST', '/api/storage/upload', { body: form(parts) });
}

/** Keys of the local bucket under `prefix`. */
export async function objectKeys(prefix: string): Promise<string[]> {
  const { config } = await import('#lib/config.ts');
  const s3 = new S3Client({
    region: 'us-east-1',
    endpoint: process.env.S3_ENDPOINT,
    forcePathStyle: true,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  });
  const keys: string[] = [];
  let token: string | undefined;
  do {
    const out = await s3.send(new ListObjectsV2Command({ Bucket: config.BUCKET_NAME, Prefix: prefix, ContinuationToken: token }));
    for (const o of out.Contents ?? []) keys.push(o.Key!);
    token = out.NextContinuationToken;
  } while (token);
  s3.destroy();
  return keys;
}

export const randomBytesOf = (n: number, seed = 1) => {
  const b = new Uint8Array(n);
  let x = (seed * 2654435761) >>> 0;
  for (let i = 0; i < n; i += 4) {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    b[i] = x & 255;
    b[i + 1] = (x >> 8) & 255;
    b[i + 2] = (x >> 16) & 255;
    b[i + 3] = x >>> 24;
  }
  return b;
};

/** One replica audit round (lib/storage/replicas.ts) run to its end: every pin's audit job done. */
export async function auditRound(opts?: Parameters<typeof import('#lib/storage/replica-worker.ts').auditReplicas>[0]) {
  const { auditReplicas } = await import('#lib/storage/replica-worker.ts');
  const { drainReplicaQueue } = await import('#lib/storage/replica-queue.ts');
  const round = await auditReplicas(opts);
  await drainReplicaQueue();
  return round;
}
