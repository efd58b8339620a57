import { randomBytes } from 'node:crypto';
import { MemoryBlockstore } from 'blockstore-core/memory';
import { CID } from 'multiformats/cid';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { logger } from '#lib/log.ts';
import { importContent } from '#lib/storage/cid.ts';
import { dagBlocks } from '#lib/storage/dag.ts';
import { PinataReplicaTarget } from '#lib/storage/replica-target-pinata.ts';
import { TargetFailure, type CopyJournal, type CopySource } from '#lib/storage/replica-target-port.ts';
import { startLocalPinata, type LocalPinata } from '#lib/local/pinata.ts';

/** PinataReplicaTarget against a loopback Pinata (lib/local/pinata.ts) over real HTTP. */
const JWT_ENV = 'TEST_PINATA_REPLICA_JWT';
const JWT = `jwt-${randomBytes(12).toString('hex')}`;
let fake: LocalPinata;

beforeAll(async () => {
  process.env[JWT_ENV] = JWT;
  fake = await startLocalPinata(JWT);
});
afterAll(async () => {
  await fake?.stop();
  delete process.env[JWT_ENV];
});
beforeEach(() => {
  fake.jwt = JWT;
  fake.ignoreCar = false;
  fake.requests.length = 0;
});

const target = () => new PinataReplicaTarget(fake.targetConfig('pinata-test', JWT_ENV), { attempts: 3, baseMs: 5, maxMs: 20 });

/** A real UnixFS DAG (1 MiB raw leaves under a dag-pb root) in memory: the copy's source. */
async function dag(size: number): Promise<{ root: string; src: CopySource; store: MemoryBlockstore }> {
  const store = new MemoryBlockstore();
  const { cid } = await importContent([randomBytes(size)], store);
  const read = async (c: CID) => {
    const parts: Uint8Array[] = [];
    for await (const p of store.get(c)) parts.push(p);
    return Buffer.concat(parts);
  };
  const blocks = await dagBlocks(cid.toString(), read);
  return { root: cid.toString(), store, src: { blocks, read: (b) => read(CID.parse(b)) } };
}

function journal(): CopyJournal & { value: number } {
  const j = {
    value: 0,
    done: async () => j.value,
    record: async (n: number) => {
      j.value = n;
    },
  };
  return j;
}

const uploads = () => fake.requests.filter((r) => r.method === 'POST' && r.path === '/v3/files');

describe('PinataReplicaTarget', () => {
  it('uploads the DAG as one CAR whose root is the file CID; every block reads back verified from the gateway', async () => {
    const { root, src, store } = await dag(2_500_000);
    expect(src.blocks).toHaveLength(4); // 3 leaves + root
    const t = target();
    const j = journal();
    await t.copy(root, src, j);
    expect(j.value).toBe(4);
    expect(uploads()).toHaveLength(1);
    expect(uploads()[0]).toMatchObject({ auth: `Bearer ${JWT}`, fields: { network: 'public', car: 'true' } });
    expect(fake.filesOf(root)).toHaveLength(1);
    for (const b of src.blocks) {
      const got = await t.check(root, b);
      expect(got.state).toBe('ok');
      const original: Uint8Array[] = [];
      for await (const p of store.get(CID.parse(b))) original.push(p);
      expect(Buffer.from(got.bytes!).equals(Buffer.concat(original))).toBe(true);
    }
    expect(Buffer.from(await t.readBlock(root, CID.parse(root))).length).toBeGreaterThan(0);
    // The gateway is asked for raw blocks and never sent the JWT.
    expect(fake.requests.filter((r) => r.path.startsWith('/ipfs/')).every((r) => r.auth === undefined)).toBe(true);

    // Copied before (a job delivered again): nothing uploaded twice.
    await t.copy(root, src, j);
    expect(uploads()).toHaveLength(1);
  });

  it('fails the copy when Pinata stores another root than the file CID, and removes what it stored', async () => {
    const { root, src } = await dag(1_200_000);
    fake.ignoreCar = true; // Pinata chunked the CAR as a plain file
    const before = fake.files.size;
    const j = journal();
    const err = await target()
      .copy(root, src, j)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TargetFailure);
    expect(err).toMatchObject({ state: 'failed' });
    expect((err as Error).message).toContain(`not ${root}`);
    expect(j.value).toBe(0);
    expect(uploads()).toHaveLength(1);
    expect(fake.requests.filter((r) => r.method === 'DELETE')).toHaveLength(1);
    expect(fake.files.size).toBe(before); // the stray upload was deleted
  });

  it('401: "pinata credentials refused", at once (no retry), with no secret in the reason', async () => {
    const { root, src } = await dag(300_000);
    fake.jwt = 'a-rotated-key';
    const j = journal();
    const err = (await target()
      .copy(root, src, j)
      .catch((e: unknown) => e)) as TargetFailure;
    expect(err).toBeInstanceOf(TargetFailure);
    expect(err.state).toBe('failed');
    expect(err.message).toBe('pinata-test: pinata credentials refused (HTTP 401 on upload)');
    expect(err.message).not.toContain(JWT);
    expect(uploads()).toHaveLength(1);
    expect(j.value).toBe(0);
  });

  it('429 and 5xx are retried with backoff: 429, 429 then success; 503 past the attempts → unreachable', async () => {
    const { root, src } = await dag(300_000);
    fake.failNext(429, 429);
    const j = journal();
    await target().copy(root, src, j);
    expect(uploads()).toHaveLength(3);
    expect(j.value).toBe(src.blocks.length);
    expect(fake.filesOf(root)).toHaveLength(1);

    const other = await dag(200_000);
    fake.requests.length = 0;
    fake.failNext(503, 503, 503);
    const err = (await target()
      .copy(other.root, other.src, journal())
      .catch((e: unknown) => e)) as TargetFailure;
    expect(err).toBeInstanceOf(TargetFailure);
    expect(err.state).toBe('unreachable');
    expect(err.message).toBe('pinata-test: pinata upload: HTTP 503 after 3 attempts');
    expect(uploads()).toHaveLength(3);
  });

  it('a missing or corrupted block is seen by check; repair uploads the CAR again; release deletes every file of the root', async () => {
    const { root, src } = await dag(2_200_000);
    const t = target();
    await t.copy(root, src, journal());
    const [, lost, bad] = src.blocks;
    await fake.deleteBlock(lost!);
    await fake.corruptBlock(bad!);
    expect((await t.check(root, lost!)).state).toBe('missing');
    expect((await t.check(root, bad!)).state).toBe('corrupt');
    await expect(t.readBlock(root, CID.parse(lost!))).rejects.toThrow(/not found/);

    await t.repair(root, [lost!, bad!], src);
    expect((await t.check(root, lost!)).state).toBe('ok');
    expect((await t.check(root, bad!)).state).toBe('ok');
    expect(fake.filesOf(root)).toHaveLength(2); // the first upload and the repair's

    await t.release(root);
    expect(fake.requests.some((r) => r.method === 'GET' && r.path === '/v3/files/public')).toBe(true);
    expect(fake.filesOf(root)).toEqual([]);
    for (const b of src.blocks) expect((await t.check(root, b)).state).toBe('missing');
    await t.release(root); // nothing left: a no-op
  });

  it('never hands the JWT to the logger, through retries, refusals and a root mismatch', async () => {
    const logged: unknown[] = [];
    const spies = (['debug', 'info', 'warn', 'error'] as const).map((level) =>
      vi.spyOn(logger, level).mockImplementation((...args: unknown[]) => void logged.push(args)),
    );
    try {
      const { root, src } = await dag(200_000);
      fake.failNext(429, 503);
      await target().copy(root, src, journal());
      fake.jwt = 'another';
      await target()
        .release(root)
        .catch(() => undefined);
      fake.jwt = JWT;
      fake.ignoreCar = true;
      await target()
        .repair(root, [], src)
        .catch(() => undefined);
    } finally {
      for (const s of spies) s.mockRestore();
    }
    expect(logged.length).toBeGreaterThanOrEqual(2); // the two retries were logged
    expect(JSON.stringify(logged)).not.toContain(JWT);
  });

  it('a gateway that is down makes the target unreachable with the reason; an unset JWT variable fails with its name only', async () => {
    const down = new PinataReplicaTarget({ ...fake.targetConfig('pinata-down', JWT_ENV), gateway: 'http://127.0.0.1:9' }, { attempts: 2, baseMs: 1, maxMs: 2 });
    const { root, src } = await dag(100_000);
    const got = await down.check(root, src.blocks[0]!);
    expect(got.state).toBe('unreachable');
    expect(got.reason).toMatch(/^pinata-down: pinata read: no answer .* after 2 attempts$/);

    const unset = new PinataReplicaTarget(fake.targetConfig('pinata-unset', 'TEST_PINATA_UNSET_JWT'));
    await expect(unset.copy(root, src, journal())).rejects.toMatchObject({
      state: 'failed',
      message: 'pinata-unset: pinata credentials unavailable (environment variable TEST_PINATA_UNSET_JWT is not set)',
    });
  });
});
