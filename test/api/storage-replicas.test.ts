import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { advanceClock } from '#lib/clock.ts';
import { verifyStorageProof } from '#lib/client/storage-proof.ts';
import { startTestRuntime, type HttpClient, type TestRuntime } from '../support/runtime.ts';
import { auditRound, randomBytesOf, signedIn, upload } from '../support/storage.ts';

let rt: TestRuntime;
let alice: HttpClient & { userId: string };
let bob: HttpClient & { userId: string };
let replicas: typeof import('#lib/storage/replicas.ts');
let worker: typeof import('#lib/storage/replica-worker.ts');
let queue: typeof import('#lib/storage/replica-queue.ts');

beforeAll(async () => {
  // Every block of these small files is read back by each audit.
  rt = await startTestRuntime({ RATE_LIMIT_MULTIPLIER: '20', REPLICA_AUDIT_SAMPLE: '100' });
  alice = await signedIn(rt);
  bob = await signedIn(rt);
  replicas = await import('#lib/storage/replicas.ts');
  worker = await import('#lib/storage/replica-worker.ts');
  queue = await import('#lib/storage/replica-queue.ts');
});
afterAll(async () => {
  await rt?.stop();
});
beforeEach(() => advanceClock(61_000)); // a fresh rate-limit window per test
afterEach(() => {
  replicas.replicaHooks.afterBlock = undefined;
  // A test that stopped the consumer and failed before starting it again leaves none for the next.
  queue.startLocalReplicaQueue(worker.handleReplicaJob);
});

const ivSalt = { iv: Buffer.from('0123456789ab').toString('base64'), salt: Buffer.from('saltsaltsaltsalt').toString('base64') };

/** Uploads `size` random bytes (variant B, no proof): 1 MiB leaves under one root. */
async function uploadFile(client: HttpClient, size: number) {
  const res = await upload(client, { file: { bytes: randomBytesOf(size, randomBytes(2).readUInt16BE() + 1), name: 'c.bin' }, fields: ivSalt });
  expect(res.status, JSON.stringify(res.json)).toBe(201);
  return res.json as { fileId: string; cid: string };
}

const pin = (client: HttpClient, cid: string, n = 3) => client.post('/api/storage/replica/pin', { cid, replicas: n });
const status = (client: HttpClient, cid: string, challenge?: string) =>
  client.get(`/api/storage/replica/status/${cid}${challenge ? `?challenge=${challenge}` : ''}`);

/** The object files of `root`'s replica in target `n`'s data directory (s3rver keeps one file per object). */
function replicaFiles(n: number, root: string): string[] {
  const dir = join(rt.dataDir, `replica-${n}`, `shroud-replica-${n}`, 'replicas', root);
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('._S3rver_object'))
    .map((f) => join(dir, f))
    .filter((p) => statSync(p).isFile());
}

async function pinned(client: HttpClient, cid: string) {
  const res = await pin(client, cid);
  expect(res.status, JSON.stringify(res.json)).toBe(202);
  await queue.drainReplicaQueue();
  return res;
}

describe('a replica pin, by itself', () => {
  it('completes through the queue and the worker: pinned on every target, and its proof verifies', async () => {
    const { cid } = await uploadFile(alice, 1_500_000);
    expect((await pin(alice, cid)).status).toBe(202);
    // No drain: the queue's consumer (SQS and the worker in the asset mode, the local queue under npm start) completes it.
    let st = await status(alice, cid);
    for (const until = Date.now() + 100_000; st.json.status !== 'pinned' && Date.now() < until; st = await status(alice, cid)) {
      await new Promise((r) => setTimeout(r, 500));
    }
    expect(st.json, JSON.stringify(st.json)).toMatchObject({ cid, replicas: 3, status: 'pinned' });
    expect(st.json.targets.map((t: { state: string }) => t.state)).toEqual(['ok', 'ok', 'ok']);
    expect(await verifyStorageProof(st.json.storageProof, { cid, challenge: st.json.challenge, minReplicas: 3 })).toMatchObject({ valid: true });
  }, 150_000);
});

describe('replica/pin bounds and ownership', () => {
  it('answers 400 naming the bounds, 404 for a CID the caller has no file of', async () => {
    const { cid } = await uploadFile(alice, 10_000);
    for (const n of [2, 4, 0]) {
      const res = await pin(alice, cid, n);
      expect(res.status).toBe(400);
      expect(res.json).toEqual({ error: 'INVALID_INPUT', message: 'replicas: must be between 3 and 3 (the number of storage targets)' });
    }
    expect((await pin(alice, cid, 2.5)).status).toBe(400);
    const other = await pin(bob, cid);
    expect(other.status).toBe(404);
    expect((await status(bob, cid)).status).toBe(404);
    expect((await status(alice, cid)).status).toBe(404); // never pinned
  });
});

describe('replicated pinning on three local targets', () => {
  it('pins 3 of 3: 202 pending, then pinned with a storage proof lib/client verifies; pinning again renews', async () => {
    const { cid } = await uploadFile(alice, 3_500_000); // 4 leaves + root
    const res = await pin(alice, cid);
    expect(res.status).toBe(202);
    expect(res.json).toMatchObject({ success: true, cid, replicas: 3, status: 'pending', storageProof: null });
    const firstExpiry = Date.parse(res.json.expiresAt);
    await queue.drainReplicaQueue();

    const challenge = randomBytes(32).toString('hex');
    const st = await status(alice, cid, challenge);
    expect(st.status).toBe(200);
    expect(st.json).toMatchObject({ cid, replicas: 3, status: 'pinned', challenge });
    expect(st.json.targets.map((t: { state: string }) => t.state)).toEqual(['ok', 'ok', 'ok']);
    for (const n of [1, 2, 3]) expect(replicaFiles(n, cid)).toHaveLength(5);
    const check = await verifyStorageProof(st.json.storageProof, { cid, challenge, minReplicas: 3 });
    expect(check).toMatchObject({ valid: true });
    expect(check.replicas.map((r) => r.name).sort()).toEqual(['local-1', 'local-2', 'local-3']);
    // The proof answers this challenge only, and this CID only.
    expect((await verifyStorageProof(st.json.storageProof, { cid, challenge: randomBytes(32).toString('hex') })).valid).toBe(false);
    const { cid: other } = await uploadFile(alice, 1000);
    expect((await verifyStorageProof(st.json.storageProof, { cid: other })).valid).toBe(false);

    advanceClock(3_600_000);
    const again = await pin(alice, cid);
    expect(again.status).toBe(202);
    expect(again.json.status).toBe('pinned'); // idempotent: nothing to copy
    expect(Date.parse(again.json.expiresAt)).toBeGreaterThan(firstExpiry);
  });

  it('the audit finds a deleted and a corrupted block, repairs them, and the proof verifies again', async () => {
    const { cid } = await uploadFile(alice, 3_000_000);
    await pinned(alice, cid);
    const [lost] = replicaFiles(1, cid);
    const [bad] = replicaFiles(2, cid);
    rmSync(lost!);
    writeFileSync(bad!, Buffer.from('not the block you stored'));

    await auditRound();
    expect(existsSync(lost!)).toBe(true);
    const st = await status(alice, cid);
    expect(st.json.status).toBe('pinned');
    expect(st.json.lastAudit).toMatchObject({ repaired: 2, unreachable: [] });
    expect(st.json.repairs).toBe(2);
    expect(await verifyStorageProof(st.json.storageProof, { cid, challenge: st.json.challenge, minReplicas: 3 })).toMatchObject({ valid: true });
  });

  it('one target down → degraded; back up (and missing a block) → repaired to pinned', async () => {
    const { cid } = await uploadFile(alice, 2_500_000);
    await pinned(alice, cid);
    const third = rt.services.replicaTargets[2]!;
    await third.down();
    try {
      await auditRound();
      const st = await status(alice, cid);
      expect(st.json.status).toBe('degraded');
      expect(st.json.reason).toMatch(/2 of 3 replicas.*local-3/);
      expect(st.json.targets.find((t: { name: string }) => t.name === 'local-3').state).toBe('unreachable');
      // The two that answer still prove; three are not claimed.
      expect((await verifyStorageProof(st.json.storageProof, { cid, minReplicas: 2 })).valid).toBe(true);
      expect((await verifyStorageProof(st.json.storageProof, { cid, minReplicas: 3 })).valid).toBe(false);
    } finally {
      await third.up();
    }
    rmSync(replicaFiles(3, cid)[0]!); // what it lost while it was out
    await auditRound();
    const st = await status(alice, cid);
    expect(st.json.status).toBe('pinned');
    expect(st.json.lastAudit.repaired).toBe(1);
    expect(replicaFiles(3, cid)).toHaveLength(4);
    expect(await verifyStorageProof(st.json.storageProof, { cid, minReplicas: 3 })).toMatchObject({ valid: true });
  });

  it('a target down while pinning → degraded with the reason; the audit completes the copy → pinned', async () => {
    const { cid } = await uploadFile(alice, 2_200_000);
    const first = rt.services.replicaTargets[0]!;
    await first.down();
    try {
      await pinned(alice, cid);
      const st = await status(alice, cid);
      expect(st.json.status).toBe('degraded');
      expect(st.json.reason).toMatch(/local-1/);
    } finally {
      await first.up();
    }
    await auditRound();
    const st = await status(alice, cid);
    expect(st.json.status).toBe('pinned');
    expect(replicaFiles(1, cid)).toHaveLength(4);
  });

  it('the worker dies mid-copy: the job comes back and resumes after the last copied block', async () => {
    const { cid } = await uploadFile(alice, 4_500_000); // 5 leaves + root
    const copied: number[] = [];
    let crashed = false;
    replicas.replicaHooks.afterBlock = (target, index) => {
      if (target !== 'local-1') return;
      copied.push(index);
      if (index === 2 && !crashed) {
        crashed = true;
        throw new Error('worker killed');
      }
    };
    await pinned(alice, cid);
    expect(crashed).toBe(true);
    // 0, 1, 2 before the crash; 3, 4, 5 after: nothing copied twice, nothing skipped.
    expect(copied).toEqual([0, 1, 2, 3, 4, 5]);
    expect((await status(alice, cid)).json.status).toBe('pinned');
    expect(replicaFiles(1, cid)).toHaveLength(6);
    expect(queue.localDeadLetters()).toEqual([]);
  });

  /**
   * The consumer stopped mid-copy, its job gone with it, as a runtime's end leaves things: the pin
   * is `pinning` with 3 of local-1's 6 blocks copied and nothing queued. Returns the blocks
   * local-1 copied, and keeps recording them.
   */
  async function stoppedMidCopy(cid: string): Promise<number[]> {
    const copied: number[] = [];
    let stopping: Promise<void> | undefined;
    // A handle on the running consumer (the same queues and handler the runtime started).
    const stopConsumer = queue.startLocalReplicaQueue(worker.handleReplicaJob);
    replicas.replicaHooks.afterBlock = (target, index) => {
      if (target !== 'local-1') return;
      copied.push(index);
      if (index === 2 && !stopping) {
        stopping = stopConsumer();
        throw new Error('the process ended');
      }
    };
    expect((await pin(alice, cid)).status).toBe(202);
    await vi.waitFor(() => expect(stopping).toBeDefined(), { timeout: 30_000 });
    await stopping;
    expect((await status(alice, cid)).json.status).toBe('pinning');
    expect(copied).toEqual([0, 1, 2]);
    return copied;
  }

  it('a runtime stopped mid-copy: its next start queues the copy again, which resumes after the last copied block', async () => {
    const { cid } = await uploadFile(alice, 4_500_000); // 5 leaves + root
    const copied = await stoppedMidCopy(cid);
    // The start: the consumer, then the jobs of the pins left unfinished.
    queue.startLocalReplicaQueue(worker.handleReplicaJob);
    expect(await worker.requeueUnfinishedJobs()).toBe(1);
    await queue.drainReplicaQueue();
    expect(copied).toEqual([0, 1, 2, 3, 4, 5]);
    expect((await status(alice, cid)).json.status).toBe('pinned');
    expect(replicaFiles(1, cid)).toHaveLength(6);
    // Nothing unfinished is left to queue.
    expect(await worker.requeueUnfinishedJobs()).toBe(0);
  });

  it('pinning again does not hold back a copy that went quiet: within 20 minutes nothing is queued and the clock keeps running; after, the copy is queued', async () => {
    const { cid } = await uploadFile(alice, 4_500_000);
    const copied = await stoppedMidCopy(cid);
    queue.startLocalReplicaQueue(worker.handleReplicaJob);
    advanceClock(15 * 60_000);
    expect((await pin(alice, cid)).json.status).toBe('pinning');
    await queue.drainReplicaQueue();
    expect(copied).toEqual([0, 1, 2]);
    // 21 minutes since the copy last moved (the renewal above did not count): queued again.
    advanceClock(6 * 60_000);
    expect((await pin(alice, cid)).json.status).toBe('pending');
    await queue.drainReplicaQueue();
    expect(copied).toEqual([0, 1, 2, 3, 4, 5]);
    expect((await status(alice, cid)).json.status).toBe('pinned');
  });

  it('deleting the file releases every replica; a second owner keeps the pin until they delete too', async () => {
    const bytes = randomBytesOf(1_500_000, 777);
    const a = await upload(alice, { file: { bytes }, fields: ivSalt });
    const b = await upload(bob, { file: { bytes }, fields: ivSalt });
    const cid = a.json.cid as string;
    expect(b.json.cid).toBe(cid);
    await pinned(alice, cid);
    await pinned(bob, cid);
    expect((await alice.delete(`/api/storage/files/${a.json.fileId}`)).status).toBe(200);
    await queue.drainReplicaQueue();
    expect(replicaFiles(1, cid)).toHaveLength(3);
    expect((await status(bob, cid)).json.status).toBe('pinned');
    expect((await bob.delete(`/api/storage/files/${b.json.fileId}`)).status).toBe(200);
    await queue.drainReplicaQueue();
    for (const n of [1, 2, 3]) expect(replicaFiles(n, cid)).toEqual([]);
    const { getReplicaPin } = await import('#lib/data/replica-pins.ts');
    expect(await getReplicaPin(cid)).toBeUndefined();
  });

  it('an audit round of many pins is listed in slices and every pin audited, each by its own job', async () => {
    const { getReplicaPin, listReplicaPinCids } = await import('#lib/data/replica-pins.ts');
    const { clock } = await import('#lib/clock.ts');
    const cids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const { cid } = await uploadFile(alice, 2000 + i);
      await pinned(alice, cid);
      cids.push(cid);
    }
    advanceClock(1000);
    const all = (await listReplicaPinCids(undefined, 1000)).cids;
    expect(all.length).toBeGreaterThanOrEqual(5);
    // Two CIDs per page and a slice that ends after its first page: the rest goes on as a job.
    const round = await auditRound({ pageSize: 2, sliceMs: 0 });
    expect(round).toMatchObject({ queued: 2, continued: true });
    // The job it handed on lists exactly the pins it did not queue.
    expect((await listReplicaPinCids(round.after, 1000)).cids).toEqual(all.slice(2));
    for (const cid of all) {
      const p = (await getReplicaPin(cid))!;
      if (p.status === 'pinned') expect(p.lastAudit?.at, cid).toBeGreaterThanOrEqual(round.round);
    }
    for (const cid of cids) {
      const p = (await getReplicaPin(cid))!;
      expect(p.status).toBe('pinned');
      expect(p.lastAudit).toMatchObject({ checked: 3, repaired: 0 }); // its one block on each of three replicas
      expect(p.lastAudit!.at).toBeGreaterThanOrEqual(round.round);
    }
    expect(queue.localDeadLetters()).toEqual([]);

    // The handed-on job lists after its CID only: the pins before it are not audited again.
    advanceClock(1000);
    const lastAudit = async (cid: string) => (await getReplicaPin(cid))!.lastAudit?.at;
    const before = new Map(await Promise.all(all.map(async (cid) => [cid, await lastAudit(cid)] as const)));
    const firstHalf = await listReplicaPinCids(undefined, Math.floor(all.length / 2));
    const next = clock.nowMs();
    await worker.handleReplicaJob({ kind: 'audit-round', round: next, after: firstHalf.next! });
    await queue.drainReplicaQueue();
    for (const cid of all) {
      if (firstHalf.cids.includes(cid)) expect(await lastAudit(cid), cid).toBe(before.get(cid));
      else if ((await getReplicaPin(cid))!.status === 'pinned') expect(await lastAudit(cid), cid).toBeGreaterThanOrEqual(next);
    }
  });

  it('the audit list, split 16 ways, gives every pin once however it is paged, and still reads the records from before the split', async () => {
    const { listReplicaPinCids, saveReplicaPin } = await import('#lib/data/replica-pins.ts');
    const { putItem } = await import('#lib/data/items.ts');
    const { db, tableName } = await import('#lib/data/client.ts');
    const { UpdateCommand } = await import('@aws-sdk/lib-dynamodb');
    /** Puts a pin record's index entry back in the partition it had before the split. */
    const updateItem = (cid: string, partition: string) =>
      db.send(
        new UpdateCommand({
          TableName: tableName,
          Key: { pk: `REPLICA#${cid}`, sk: 'PIN' },
          UpdateExpression: 'SET gsi1pk = :p',
          ExpressionAttributeValues: { ':p': partition },
        }),
      );
    const listAll = async (pageSize: number) => {
      const cids: string[] = [];
      let cursor: string | undefined;
      for (let pages = 0; ; pages++) {
        expect(pages).toBeLessThan(1000);
        const page = await listReplicaPinCids(cursor, pageSize);
        expect(page.cids.length).toBeLessThanOrEqual(pageSize);
        cids.push(...page.cids);
        if (!page.next) return cids;
        cursor = page.next;
      }
    };
    // Records as written before the split (one index partition, `REPLICAS`); only the list reads them.
    const legacy = ['bafylegacy-a', 'bafylegacy-b', 'bafylegacy-c'];
    for (const cid of legacy) await putItem({ pk: `REPLICA#${cid}`, sk: 'PIN', gsi1pk: 'REPLICAS', gsi1sk: cid, cid });
    // And records as written now, enough to fill several of the 16 partitions.
    const now = Date.now();
    const fresh = Array.from({ length: 24 }, (_, i) => `bafyfresh-${i}`);
    for (const cid of fresh) {
      const saved = await saveReplicaPin({
        cid,
        owners: [],
        replicas: 3,
        status: 'pinned',
        placements: [],
        targets: {},
        expiresAtMs: now + 3_600_000,
        createdAtMs: now,
        updatedAtMs: now,
        repairs: 0,
        version: 1,
      });
      expect(saved).toBe(true);
    }
    try {
      const whole = await listAll(1000);
      expect(whole.slice(0, 3)).toEqual(legacy); // the old partition first
      expect(new Set(whole).size).toBe(whole.length);
      for (const cid of fresh) expect(whole).toContain(cid);
      for (const size of [1, 2, 3, 7]) expect(await listAll(size), `pages of ${size}`).toEqual(whole);
      // A cursor handed on before the split is a bare CID of the old partition: the list goes on after it, then the rest.
      expect((await listReplicaPinCids('bafylegacy-a', 1000)).cids).toEqual(whole.slice(1));
      await expect(listReplicaPinCids('NOT-A-PARTITION/x', 10)).rejects.toThrow('not a cursor');
      // A real pin written before the split moves to its partition with its next write (here an audit's).
      const { cid } = await uploadFile(alice, 1700);
      await pinned(alice, cid);
      await updateItem(cid, 'REPLICAS');
      expect((await listReplicaPinCids(undefined, 4)).cids).toEqual([...legacy, cid].sort());
      await worker.handleReplicaJob({ kind: 'audit', cid, round: (await import('#lib/clock.ts')).clock.nowMs() });
      const moved = await listAll(1000);
      expect(moved.slice(0, 3)).toEqual(legacy);
      expect(moved.filter((c) => c === cid)).toEqual([cid]);
    } finally {
      const { deleteItem } = await import('#lib/data/items.ts');
      for (const cid of [...legacy, ...fresh]) await deleteItem({ pk: `REPLICA#${cid}`, sk: 'PIN' });
    }
  });

  it('an audit job for a pin audited since its round began does nothing (a job delivered twice)', async () => {
    const { getReplicaPin } = await import('#lib/data/replica-pins.ts');
    const { clock } = await import('#lib/clock.ts');
    const { cid } = await uploadFile(alice, 1500);
    await pinned(alice, cid);
    const round = clock.nowMs();
    await worker.handleReplicaJob({ kind: 'audit', cid, round });
    const audited = (await getReplicaPin(cid))!.lastAudit!.at;
    expect(audited).toBeGreaterThanOrEqual(round);
    advanceClock(5000);
    await worker.handleReplicaJob({ kind: 'audit', cid, round });
    expect((await getReplicaPin(cid))!.lastAudit!.at).toBe(audited);
    await worker.handleReplicaJob({ kind: 'audit', cid, round: clock.nowMs() }); // the next round's
    expect((await getReplicaPin(cid))!.lastAudit!.at).toBeGreaterThanOrEqual(audited + 5000);
  });

  it('a pin past its term is released by the audit', async () => {
    const carol = await signedIn(rt);
    const { cid } = await uploadFile(carol, 1_200_000);
    await pinned(carol, cid);
    advanceClock(31 * 86_400_000);
    expect((await auditRound()).queued).toBeGreaterThanOrEqual(1);
    for (const n of [1, 2, 3]) expect(replicaFiles(n, cid)).toEqual([]);
    const dave = await signedIn(rt, carol.userId as ReturnType<typeof crypto.randomUUID>); // the old session is long expired
    expect((await status(dave, cid)).status).toBe(404);
  });
});
