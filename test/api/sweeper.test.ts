import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { CID } from 'multiformats/cid';
import { advanceClock } from '#lib/clock.ts';
import { startTestRuntime, type HttpClient, type TestRuntime } from '../support/runtime.ts';
import { partsB, proofOf, randomBytesOf, sha256, signedIn, upload } from '../support/storage.ts';

/**
 * Issue 11, item 11: a crash between writing blocks and writing the file record leaves nothing
 * visible, and the sweeper takes the blocks back after an hour — never a referenced block, and
 * never one that a concurrent upload is re-using.
 */
let rt: TestRuntime;
let alice: HttpClient & { userId: string };
let bob: HttpClient & { userId: string };
let storage: {
  sweeper: typeof import('#lib/storage/sweeper.ts');
  pinning: typeof import('#lib/storage/pinning.ts');
  pins: typeof import('#lib/storage/pins.ts');
  files: typeof import('#lib/storage/files.ts');
  index: typeof import('#lib/data/block-index.ts');
  journal: typeof import('#lib/data/upload-journal.ts');
  s3pinning: typeof import('#lib/storage/pinning-s3.ts');
};

beforeAll(async () => {
  rt = await startTestRuntime({ RATE_LIMIT_MULTIPLIER: '20' });
  alice = await signedIn(rt);
  bob = await signedIn(rt);
  storage = {
    sweeper: await import('#lib/storage/sweeper.ts'),
    pinning: await import('#lib/storage/pinning.ts'),
    pins: await import('#lib/storage/pins.ts'),
    files: await import('#lib/storage/files.ts'),
    index: await import('#lib/data/block-index.ts'),
    journal: await import('#lib/data/upload-journal.ts'),
    s3pinning: await import('#lib/storage/pinning-s3.ts'),
  };
  // These tests are about the per-block layout (files stored before CAR shards, whose blocks are
  // shared between DAGs); the CAR layout's own sweep is the last describe.
  storage.pinning.setPinning(new storage.s3pinning.S3Pinning(undefined, 'blocks'));
});
afterAll(async () => {
  storage?.pinning.setPinning(undefined);
  await rt?.stop();
  await (await import('#lib/zk/groth16.ts')).terminateCurves();
});

const HOUR = 3600 * 1000;
const MiB = 1024 * 1024;

async function adapter() {
  const a = await storage.pinning.pinning();
  if (!(a instanceof storage.s3pinning.S3Pinning)) throw new Error('the tests run on the s3 adapter');
  return a;
}
const has = async (block: string) => (await adapter()).store.has(block);

/** What a crash right after the blocks and before the record leaves: the journal, the entries, the blocks. */
async function crashedUpload(bytes: Uint8Array) {
  const uploadId = randomUUID();
  await storage.journal.openJournal(uploadId);
  const added = await (await adapter()).add(
    (async function* () {
      yield bytes;
    })(),
    { uploadId },
  );
  return { uploadId, added, blocks: added.ref.blocks! };
}

/** A crash after the commit (CAR layout): bob's record and pin are written, the journal was never closed. */
async function crashedAfterCommit(bytes: Uint8Array) {
  const uploadId = randomUUID();
  await storage.journal.openJournal(uploadId);
  const added = await (await adapter()).add(
    (async function* () {
      yield bytes;
    })(),
    { uploadId },
  );
  const record = storage.files.newFileRecord({
    userId: bob.userId,
    cid: added.cid,
    filename: 'late.bin',
    size: bytes.length,
    checksum: sha256(bytes),
    zkEnabled: false,
    variant: 'B',
  });
  await storage.pins.commitRecord(record, added, uploadId, 's3');
  return { uploadId, record };
}

async function uploadB(client: HttpClient, bytes: Uint8Array) {
  const res = await upload(client, { file: { bytes, name: 'f.bin' }, fields: await partsB() });
  expect(res.status, JSON.stringify(res.json)).toBe(201);
  return res.json as { fileId: string; cid: string };
}
async function download(client: HttpClient, fileId: string) {
  const p = await proofOf('pw-alpha');
  const res = await client.post('/api/storage/download', { fileId, proof: p.proof, publicSignals: p.publicSignals });
  expect(res.status).toBe(200);
  return new Uint8Array(await res.res.arrayBuffer());
}

describe('a crash between the blocks and the record', () => {
  it('leaves nothing visible, and the sweeper removes its blocks (and stray ones) once they are an hour old', async () => {
    const bytes = randomBytesOf(2 * MiB + 4000, 501);
    const crashed = await crashedUpload(bytes);
    expect(crashed.blocks.length).toBeGreaterThanOrEqual(3);
    // A block no entry points to at all (what the old write order could leave).
    const strayBytes = randomBytesOf(5000, 502);
    const { cidOf } = await import('#lib/storage/cid.ts');
    const stray = await cidOf(strayBytes);
    await (await adapter()).store.put(CID.parse(stray), strayBytes);

    // Nothing visible: no record anywhere points at it.
    expect(await storage.pins.getPin(crashed.added.cid)).toBeUndefined();
    for (const c of [alice, bob]) expect((await c.get('/api/storage/files')).json.files.map((f: { cid: string }) => f.cid)).not.toContain(crashed.added.cid);
    for (const b of [...crashed.blocks, stray]) expect(await has(b)).toBe(true);

    // Younger than an hour: maybe an upload still running; left alone.
    const early = await storage.sweeper.sweepOnce();
    expect(early.blocksDeleted).toBe(0);
    expect(early.entriesRemoved).toBe(0);
    for (const b of [...crashed.blocks, stray]) expect(await has(b)).toBe(true);

    advanceClock(HOUR + 60_000);
    const report = await storage.sweeper.sweepOnce();
    expect(report.blocksDeleted).toBeGreaterThanOrEqual(crashed.blocks.length + 1);
    for (const b of [...crashed.blocks, stray]) {
      expect(await has(b), b).toBe(false);
      expect(await storage.index.holdersOf(b)).toEqual([]);
    }
  });
});

describe('referenced blocks', () => {
  it('are never swept: a stored file, a block it shares with a crashed upload, a file whose upload crashed after its commit', async () => {
    const shared = randomBytesOf(MiB, 511); // one full leaf, identical in both
    const kept = new Uint8Array([...shared, ...randomBytesOf(MiB + 10, 512)]);
    const file = await uploadB(alice, kept);
    const pinBlocks = (await storage.pins.getPin(file.cid))!.ref.blocks!;

    const orphan = await crashedUpload(new Uint8Array([...shared, ...randomBytesOf(20_000, 513)]));
    const sharedBlock = orphan.blocks.find((b) => pinBlocks.includes(b))!;
    expect(sharedBlock).toBeDefined();
    const orphanOnly = orphan.blocks.filter((b) => !pinBlocks.includes(b));

    // Crash after the commit: the record and pin are written, the journal was never closed.
    const late = randomBytesOf(300_000, 514);
    const lateId = randomUUID();
    await storage.journal.openJournal(lateId);
    const added = await (await adapter()).add(
      (async function* () {
        yield late;
      })(),
      { uploadId: lateId },
    );
    const record = storage.files.newFileRecord({
      userId: bob.userId,
      cid: added.cid,
      filename: 'late.bin',
      size: late.length,
      checksum: sha256(late),
      zkEnabled: false,
      variant: 'B',
    });
    await storage.pins.commitRecord(record, added, lateId, 's3');

    advanceClock(2 * HOUR);
    const report = await storage.sweeper.sweepOnce();
    expect(report.journalsClosed).toBeGreaterThanOrEqual(1);
    for (const b of [...pinBlocks, ...added.ref.blocks!]) expect(await has(b), b).toBe(true);
    expect(await has(sharedBlock)).toBe(true);
    for (const b of orphanOnly) expect(await has(b), b).toBe(false);
    expect(await storage.journal.readJournal(lateId)).toBeUndefined();

    expect(sha256(await download(alice, file.fileId))).toBe(sha256(kept));
    expect(sha256(await download(bob, record.id))).toBe(sha256(late));
    // And again: a second pass changes nothing.
    advanceClock(2 * HOUR);
    expect((await storage.sweeper.sweepOnce()).blocksDeleted).toBe(0);
    expect(sha256(await download(alice, file.fileId))).toBe(sha256(kept));
  });
});

describe('a concurrent upload re-using an orphan block', () => {
  it('keeps the block: the upload that lands between the look and the delete is seen by the second look', async () => {
    const bytes = randomBytesOf(200_000, 521); // one raw block: its CID is the file's
    const orphan = await crashedUpload(bytes);
    const [block] = orphan.blocks;
    advanceClock(HOUR + 60_000);

    let uploaded: { fileId: string; cid: string } | undefined;
    const report = await storage.sweeper.sweepOnce({
      beforeDelete: async (b) => {
        // The crashed upload's entry is gone, the block is unheld and old: now Bob uploads the same content.
        if (b === block && !uploaded) uploaded = await uploadB(bob, bytes);
      },
    });
    expect(uploaded?.cid).toBe(block);
    expect(report.entriesRemoved).toBeGreaterThanOrEqual(1);
    expect(await has(block!)).toBe(true);
    expect(await storage.index.holdersOf(block!)).toHaveLength(1);
    expect(sha256(await download(bob, uploaded!.fileId))).toBe(sha256(bytes));

    // Later passes leave it too: it is referenced now.
    advanceClock(2 * HOUR);
    await storage.sweeper.sweepOnce();
    expect(sha256(await download(bob, uploaded!.fileId))).toBe(sha256(bytes));
  });

  it('many passes racing many uploads that share blocks lose nothing', async () => {
    const chunk = randomBytesOf(MiB, 531);
    // Orphans holding the shared chunk, old enough to be swept.
    for (let i = 0; i < 3; i++) await crashedUpload(new Uint8Array([...chunk, ...randomBytesOf(1000 + i, 532 + i)]));
    advanceClock(HOUR + 60_000);
    const contents = Array.from({ length: 4 }, (_, i) => new Uint8Array([...chunk, ...randomBytesOf(3000 + i, 540 + i)]));
    const passes = Promise.all([storage.sweeper.sweepOnce(), storage.sweeper.sweepOnce(), storage.sweeper.sweepOnce()]);
    // An upload whose content a pass removed under it answers 409 CONFLICT ("retry the upload"), by
    // design: nothing it acknowledged is lost. A client retries, as here.
    const uploadRetrying = async (client: HttpClient, bytes: Uint8Array) => {
      for (let attempt = 0; ; attempt++) {
        const res = await upload(client, { file: { bytes, name: 'f.bin' }, fields: await partsB() });
        if (res.status === 409 && attempt < 5) continue;
        expect(res.status, JSON.stringify(res.json)).toBe(201);
        return res.json as { fileId: string; cid: string };
      }
    };
    const ups = await Promise.all(contents.map((c, i) => uploadRetrying(i % 2 ? alice : bob, c)));
    await passes;
    advanceClock(2 * HOUR);
    await storage.sweeper.sweepOnce();
    for (const [i, up] of ups.entries()) expect(sha256(await download(i % 2 ? alice : bob, up.fileId))).toBe(sha256(contents[i]!));
  });
});

describe('CAR shards', () => {
  beforeAll(() => storage.pinning.setPinning(undefined));
  const shardKeys = async (uploadId: string) => {
    const { objectKeys } = await import('../support/storage.ts');
    return objectKeys(`shards/${uploadId}/`);
  };

  it('removes the shards of an upload that crashed before its record once it is an hour old; keeps those of stored files', async () => {
    const a = await adapter();
    expect(a.layout).toBe('car');
    const kept = randomBytesOf(2 * MiB + 100, 551);
    const file = await uploadB(alice, kept);
    const keptOwner = (await storage.pins.getPin(file.cid))!.ref.owner!;
    expect(await shardKeys(keptOwner)).not.toEqual([]);

    const crashed = await crashedUpload(randomBytesOf(MiB + 500, 552));
    expect(crashed.added.ref.shards).toBe(1);
    expect(await shardKeys(crashed.uploadId)).toEqual([
      `shards/${crashed.uploadId}/1.car`,
      `shards/${crashed.uploadId}/data`,
      `shards/${crashed.uploadId}/index.json`,
    ]);

    const late = randomBytesOf(300_000, 553);
    const { uploadId: lateId, record } = await crashedAfterCommit(late);

    const early = await storage.sweeper.sweepOnce();
    expect(early.shardSetsDeleted).toBe(0);
    expect(await shardKeys(crashed.uploadId)).not.toEqual([]);

    advanceClock(HOUR + 60_000);
    const report = await storage.sweeper.sweepOnce();
    expect(report.shardSetsDeleted).toBeGreaterThanOrEqual(1);
    expect(await shardKeys(crashed.uploadId)).toEqual([]);
    expect(await shardKeys(keptOwner)).not.toEqual([]);
    expect(await shardKeys(lateId)).not.toEqual([]);
    expect(sha256(await download(alice, file.fileId))).toBe(sha256(kept));
    expect(sha256(await download(bob, record.id))).toBe(sha256(late));
  });

  it("the regular pass reads only the open journals: a crashed upload's shards go an hour on, one that crashed after its commit is closed, and the bucket is never listed", async () => {
    const a = await adapter();
    const { s3 } = await import('#lib/storage/s3.ts');
    const { putItem } = await import('#lib/data/items.ts');
    const { clock } = await import('#lib/clock.ts');
    const kept = randomBytesOf(MiB + 200, 561);
    const file = await uploadB(alice, kept);
    const keptOwner = (await storage.pins.getPin(file.cid))!.ref.owner!;
    const crashed = await crashedUpload(randomBytesOf(MiB + 300, 562));
    const late = randomBytesOf(200_000, 563);
    const { uploadId: lateId, record } = await crashedAfterCommit(late);
    // A crash from before the open list: its journal has no list attributes; only the full pass finds it.
    const legacyId = randomUUID();
    await putItem({ ...storage.journal.journalKey(legacyId), startedAt: clock.nowSeconds() });
    await a.add(
      (async function* () {
        yield randomBytesOf(50_000, 564);
      })(),
      { uploadId: legacyId },
    );

    const bucketListings = () =>
      send.mock.calls.filter(([c]) => c.constructor.name === 'ListObjectsV2Command' && (c.input as { Prefix?: string }).Prefix === 'shards/').length;
    const send = vi.spyOn(s3, 'send');
    try {
      // (Counts include earlier tests' uploads: this test checks its own.)
      await storage.sweeper.sweepStale();
      expect(await shardKeys(crashed.uploadId)).not.toEqual([]);
      expect(await storage.journal.readJournal(lateId)).toBeDefined();

      advanceClock(HOUR + 60_000);
      const report = await storage.sweeper.sweepStale();
      expect(report.shardSetsDeleted).toBeGreaterThanOrEqual(1);
      expect(report.journalsClosed).toBeGreaterThanOrEqual(1);
      expect(bucketListings()).toBe(0);
      expect(await shardKeys(crashed.uploadId)).toEqual([]);
      expect(await storage.journal.readJournal(lateId)).toBeUndefined(); // closed: its file is stored
      // The dead upload's journal stays (its entries are still recognised as dead), off the open list.
      expect((await storage.journal.readJournal(crashed.uploadId))?.sweptAt).toBeDefined();
      const again = await storage.sweeper.sweepStale();
      expect(again).toMatchObject({ shardSetsSeen: 0, shardSetsDeleted: 0 }); // nothing left on the open list
      expect(await shardKeys(keptOwner)).not.toEqual([]);
      expect(await shardKeys(lateId)).not.toEqual([]);
      expect(await shardKeys(legacyId)).not.toEqual([]);

      // The daily full pass lists the bucket and takes the legacy crash's shards back.
      await storage.sweeper.sweepOnce();
      expect(bucketListings()).toBeGreaterThan(0);
      expect(await shardKeys(legacyId)).toEqual([]);
    } finally {
      send.mockRestore();
    }
    expect(sha256(await download(alice, file.fileId))).toBe(sha256(kept));
    expect(sha256(await download(bob, record.id))).toBe(sha256(late));
  });

  it('the full pass in slices (AWS): each stops after its page and records where, the next goes on from there, and the next pass begins a day after this one began', async () => {
    const a = await adapter();
    const { putItem } = await import('#lib/data/items.ts');
    const { clock } = await import('#lib/clock.ts');
    const kept = randomBytesOf(MiB + 700, 571);
    const file = await uploadB(alice, kept);
    const keptOwner = (await storage.pins.getPin(file.cid))!.ref.owner!;
    // Crashes from before the open list (only a full pass finds them), an hour old.
    const legacy: string[] = [];
    for (let i = 0; i < 3; i++) {
      const id = randomUUID();
      await putItem({ ...storage.journal.journalKey(id), startedAt: clock.nowSeconds() });
      await a.add(
        (async function* () {
          yield randomBytesOf(40_000, 572 + i);
        })(),
        { uploadId: id },
      );
      legacy.push(id);
    }
    advanceClock(HOUR + 60_000);

    const { objectKeys } = await import('../support/storage.ts');
    const shardSets = async () => new Set((await objectKeys('shards/')).map((k) => k.split('/')[1]));
    const listedBefore = { blocks: (await objectKeys('blocks/')).length, shardSets: (await shardSets()).size };
    // One key per listing page and no time: every slice stops after its first page.
    const slices: string[] = [];
    const seen = { blocks: 0, shardSets: 0 };
    const before = clock.nowSeconds();
    let passStart = before;
    for (let i = 0; i < 500; i++) {
      // A quarter of an hour between slices: the pass takes hours (the hourly schedule's would
      // outlive the signed-in user's session).
      if (i > 0) advanceClock(15 * 60_000);
      const slice = await storage.sweeper.sweepFullSlice(0, { pageSize: 1 });
      slices.push(slice.outcome);
      seen.blocks += slice.blocksSeen;
      seen.shardSets += slice.shardSetsSeen;
      expect(slice.blocksSeen + slice.shardSetsSeen).toBeLessThanOrEqual(1);
      if (slice.outcome !== 'continues') break;
      const state = await storage.journal.readFullSweepState();
      expect(state?.phase).toMatch(/^(blocks|shards)$/);
      expect(state?.after).toBeDefined();
      // The pass's start, as its first slice read the clock (a second may have ticked since `before`), kept by every slice.
      if (i === 0) passStart = state!.startedAt!;
      expect(state?.startedAt).toBe(passStart);
    }
    expect(passStart - before).toBeLessThanOrEqual(2);
    expect(slices.at(-1)).toBe('finished');
    // One slice per block (those of the per-block tests above) and per shard set, then the one that finds the end.
    expect(slices.filter((o) => o === 'continues').length).toBe(listedBefore.blocks + listedBefore.shardSets);
    expect(seen).toEqual(listedBefore); // every block and shard set listed once: none skipped, none twice
    for (const id of legacy) expect(await shardKeys(id), id).toEqual([]);
    expect(await shardKeys(keptOwner)).not.toEqual([]);
    expect(sha256(await download(alice, file.fileId))).toBe(sha256(kept));

    // Finished: the next pass begins a day after this one began (not a day after it ended).
    const tookHours = (clock.nowSeconds() - passStart) / 3600;
    expect(tookHours).toBeGreaterThan(0.5); // longer than the schedule's jitter allowance: counted from its end, the next would wait
    expect(tookHours).toBeLessThan(20);
    expect(await storage.journal.readFullSweepState()).toMatchObject({ lastStartedAt: passStart, lastFinishedAt: expect.any(Number) });
    expect((await storage.sweeper.sweepFullSlice(60_000)).outcome).toBe('waiting');
    advanceClock((passStart + 23 * 3600) * 1000 - clock.nowSeconds() * 1000);
    expect((await storage.sweeper.sweepFullSlice(60_000)).outcome).toBe('waiting');
    // The run a day after the pass's first, a few minutes early as a schedule may be.
    advanceClock(HOUR - 5 * 60_000);
    const fresh = await storage.sweeper.sweepFullSlice(60_000);
    expect(fresh.outcome).toBe('finished'); // a minute is plenty for this bucket
    expect(fresh.shardSetsSeen).toBe((await shardSets()).size);
  });

  it('reads the state written before passes recorded their start: the last end stands in for it, and a pass in progress starts its count now', async () => {
    const { clock } = await import('#lib/clock.ts');
    const { saveFullSweepState, readFullSweepState } = storage.journal;
    // Only when the last pass ended, 23 hours ago: waiting; a day ago: a pass begins.
    await saveFullSweepState({ lastFinishedAt: clock.nowSeconds() - 23 * 3600 });
    expect((await storage.sweeper.sweepFullSlice(60_000)).outcome).toBe('waiting');
    await saveFullSweepState({ lastFinishedAt: clock.nowSeconds() - 24 * 3600 });
    const now = clock.nowSeconds();
    expect((await storage.sweeper.sweepFullSlice(60_000)).outcome).toBe('finished');
    const after = await readFullSweepState();
    expect(after?.lastStartedAt).toBeGreaterThanOrEqual(now);
    expect(after?.lastStartedAt).toBeLessThanOrEqual(now + 2);
    // A pass in progress without a recorded start goes on from its place, its start counted from this slice.
    await saveFullSweepState({ phase: 'shards' });
    const t = clock.nowSeconds();
    const slice = await storage.sweeper.sweepFullSlice(0, { pageSize: 1 });
    expect(slice.blocksSeen).toBe(0); // it went on in the shard sets, not from the start
    const state = await readFullSweepState();
    const started = slice.outcome === 'continues' ? state?.startedAt : state?.lastStartedAt;
    expect(started).toBeGreaterThanOrEqual(t);
    expect(started).toBeLessThanOrEqual(t + 2);
    // The pass ends (the next test begins from a finished one).
    for (let i = 0; i < 500 && (await storage.sweeper.sweepFullSlice(60_000)).outcome === 'continues'; i++);
    expect((await readFullSweepState())?.phase).toBeUndefined();
  });

  it('a slice that fails part-way (S3 listing down) keeps the pages it finished: the next goes on from the last of them', async () => {
    const { s3 } = await import('#lib/storage/s3.ts');
    const { objectKeys } = await import('../support/storage.ts');
    advanceClock(25 * HOUR); // the last pass ended over a day ago
    const shardSets = [...new Set((await objectKeys('shards/')).map((k) => k.split('/')[1]))].sort();
    expect(shardSets.length).toBeGreaterThanOrEqual(3);
    const send = s3.send.bind(s3);
    let listings = 0;
    const spy = vi.spyOn(s3, 'send').mockImplementation(((c: { constructor: { name: string }; input: { Prefix?: string } }, ...rest: unknown[]) => {
      // The third page of shard sets fails, as S3 failing mid-pass would.
      if (c.constructor.name === 'ListObjectsV2Command' && c.input.Prefix === 'shards/' && ++listings === 3) return Promise.reject(new Error('S3 is down'));
      return (send as (...a: unknown[]) => unknown)(c, ...rest);
    }) as never);
    try {
      await expect(storage.sweeper.sweepFullSlice(60 * 60_000, { pageSize: 1 })).rejects.toThrow('S3 is down');
    } finally {
      spy.mockRestore();
    }
    expect(await storage.journal.readFullSweepState()).toMatchObject({ phase: 'shards', after: shardSets[1] });
    const rest = await storage.sweeper.sweepFullSlice(60 * 60_000, { pageSize: 1 });
    expect(rest).toMatchObject({ outcome: 'finished', blocksSeen: 0, shardSetsSeen: shardSets.length - 2 });
  });
});
