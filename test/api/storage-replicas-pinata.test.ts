import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { advanceClock } from '#lib/clock.ts';
import { verifyStorageProof } from '#lib/client/storage-proof.ts';
import { ensureLocalBucket, startS3Local, type S3Local } from '#lib/local/s3-local.ts';
import { startLocalPinata, type LocalPinata } from '#lib/local/pinata.ts';
import { startTestRuntime, type HttpClient, type TestRuntime } from '../support/runtime.ts';
import { auditRound, randomBytesOf, signedIn, upload } from '../support/storage.ts';

/**
 * Replicated pinning over mixed targets: two local S3 servers (one configured the old way, without
 * `type`) and a Pinata account (the loopback fake of lib/local/pinata.ts), its JWT named
 * by an environment variable as on a developer's machine.
 */
const JWT_ENV = 'SHROUD_TEST_PINATA_REPLICA_JWT';
const JWT = `eyJ-test-${randomBytes(16).toString('hex')}`;

let rt: TestRuntime;
let alice: HttpClient & { userId: string };
let fake: LocalPinata;
let dir: string;
const s3: S3Local[] = [];
let queue: typeof import('#lib/storage/replica-queue.ts');

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'shroud-pinata-targets-'));
  fake = await startLocalPinata(JWT);
  const targets: unknown[] = [];
  for (const n of [1, 2]) {
    const server = await startS3Local(join(dir, `s3-${n}`));
    s3.push(server);
    await ensureLocalBucket(server.endpoint, `mixed-replica-${n}`);
    targets.push({ ...(n === 2 ? { type: 's3' } : {}), name: `s3-${n}`, endpoint: server.endpoint, bucket: `mixed-replica-${n}`, region: 'us-east-1' });
  }
  targets.push(fake.targetConfig('pinata', JWT_ENV));
  rt = await startTestRuntime({ RATE_LIMIT_MULTIPLIER: '20', REPLICA_AUDIT_SAMPLE: '100', REPLICA_TARGETS: JSON.stringify(targets), [JWT_ENV]: JWT });
  alice = await signedIn(rt);
  queue = await import('#lib/storage/replica-queue.ts');
});
afterAll(async () => {
  await rt?.stop();
  for (const s of s3) await s.stop();
  await fake?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});
beforeEach(() => {
  advanceClock(61_000); // a fresh rate-limit window per test
  fake.jwt = JWT;
});

const ivSalt = { iv: Buffer.from('0123456789ab').toString('base64'), salt: Buffer.from('saltsaltsaltsalt').toString('base64') };

async function uploadFile(size: number) {
  const res = await upload(alice, { file: { bytes: randomBytesOf(size, randomBytes(2).readUInt16BE() + 1), name: 'p.bin' }, fields: ivSalt });
  expect(res.status, JSON.stringify(res.json)).toBe(201);
  return res.json as { fileId: string; cid: string };
}

async function pinAndDrain(cid: string) {
  const res = await alice.post('/api/storage/replica/pin', { cid, replicas: 3 });
  expect(res.status, JSON.stringify(res.json)).toBe(202);
  await queue.drainReplicaQueue();
}

const status = (cid: string) => alice.get(`/api/storage/replica/status/${cid}`);
const stateOf = (json: { targets: { name: string; state: string }[] }, name: string) => json.targets.find((t) => t.name === name)?.state;

describe('replicated pinning to 2 S3 targets and 1 Pinata target', () => {
  it('pins to all three; the proof, with the Pinata answer read from its gateway, verifies; deleting the file releases the Pinata copy', async () => {
    const { cid, fileId } = await uploadFile(3_200_000); // 4 leaves + root
    await pinAndDrain(cid);
    const st = await status(cid);
    expect(st.status).toBe(200);
    expect(st.json).toMatchObject({ cid, replicas: 3, status: 'pinned' });
    expect(st.json.targets.map((t: { name: string }) => t.name).sort()).toEqual(['pinata', 's3-1', 's3-2']);
    expect(st.json.targets.every((t: { state: string }) => t.state === 'ok')).toBe(true);
    // Pinata holds the DAG as one CAR upload whose root is the file's CID.
    expect(fake.filesOf(cid)).toHaveLength(1);
    expect(fake.filesOf(cid)[0]!.blocks).toHaveLength(5);
    const check = await verifyStorageProof(st.json.storageProof, { cid, challenge: st.json.challenge, minReplicas: 3 });
    expect(check).toMatchObject({ valid: true });
    expect(check.replicas.map((r) => r.name).sort()).toEqual(['pinata', 's3-1', 's3-2']);
    expect(fake.requests.some((r) => r.method === 'GET' && r.path.startsWith('/ipfs/'))).toBe(true);
    expect(JSON.stringify(st.json)).not.toContain(JWT);

    expect((await alice.delete(`/api/storage/files/${fileId}`)).status).toBe(200);
    await queue.drainReplicaQueue();
    expect(fake.filesOf(cid)).toEqual([]);
    expect(await fake.hasBlock(cid)).toBe(false);
  });

  it('a block deleted on the Pinata side: the audit finds it and repairs it by uploading the CAR again', async () => {
    const { cid } = await uploadFile(2_600_000);
    await pinAndDrain(cid);
    const leaf = fake.filesOf(cid)[0]!.blocks[2]!;
    await fake.deleteBlock(leaf);
    expect(await fake.hasBlock(leaf)).toBe(false);

    await auditRound();
    expect(await fake.hasBlock(leaf)).toBe(true);
    expect(fake.filesOf(cid)).toHaveLength(2); // the first upload and the repair's
    const st = await status(cid);
    expect(st.json.status).toBe('pinned');
    expect(st.json.lastAudit).toMatchObject({ repaired: 1, unreachable: [] });
    expect(await verifyStorageProof(st.json.storageProof, { cid, challenge: st.json.challenge, minReplicas: 3 })).toMatchObject({ valid: true });
  });

  it('a refused JWT: degraded with the reason, nothing retried, no secret shown; accepted again → the audit completes it', async () => {
    const { cid } = await uploadFile(1_500_000);
    fake.jwt = 'a-rotated-key'; // the account's key was revoked: ours is refused
    fake.requests.length = 0;
    await pinAndDrain(cid);
    const st = await status(cid);
    expect(st.json.status).toBe('degraded');
    expect(st.json.reason).toBe('2 of 3 replicas hold the content (pinata: pinata credentials refused (HTTP 401 on upload))');
    expect(stateOf(st.json, 'pinata')).toBe('failed');
    expect(fake.requests.filter((r) => r.method === 'POST')).toHaveLength(1);
    expect(JSON.stringify(st.json)).not.toContain(JWT);
    // The two S3 replicas still prove; three are not claimed.
    expect((await verifyStorageProof(st.json.storageProof, { cid, challenge: st.json.challenge, minReplicas: 2 })).valid).toBe(true);
    expect((await verifyStorageProof(st.json.storageProof, { cid, challenge: st.json.challenge, minReplicas: 3 })).valid).toBe(false);

    fake.jwt = JWT; // the key is valid again
    await auditRound();
    const after = await status(cid);
    expect(after.json.status).toBe('pinned');
    expect(stateOf(after.json, 'pinata')).toBe('ok');
    expect(fake.filesOf(cid)).toHaveLength(1);
    expect(await verifyStorageProof(after.json.storageProof, { cid, challenge: after.json.challenge, minReplicas: 3 })).toMatchObject({ valid: true });
  });
});
