import { DeleteCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { advanceClock, clock } from '#lib/clock.ts';
import type { FileRecord } from '#lib/data/files.ts';
import { startTestRuntime, type HttpClient, type TestRuntime } from '../support/runtime.ts';
import { signedIn } from '../support/storage.ts';

/**
 * "The caller's newest file with this CID" (download by CID, the replica routes) reads the CID
 * lookup items of lib/data/files.ts: constant reads whatever the file count, the same answers as
 * listing every record, and records written before lookup items existed are indexed once.
 */
let rt: TestRuntime;
let alice: HttpClient & { userId: string };
let bob: HttpClient & { userId: string };
let files: typeof import('#lib/data/files.ts');
let pins: typeof import('#lib/data/pins.ts');
let items: typeof import('#lib/data/items.ts');
let journal: typeof import('#lib/data/upload-journal.ts');
let client: typeof import('#lib/data/client.ts');
let storage: typeof import('#lib/storage/files.ts');

beforeAll(async () => {
  rt = await startTestRuntime();
  alice = await signedIn(rt);
  bob = await signedIn(rt);
  files = await import('#lib/data/files.ts');
  pins = await import('#lib/data/pins.ts');
  items = await import('#lib/data/items.ts');
  journal = await import('#lib/data/upload-journal.ts');
  client = await import('#lib/data/client.ts');
  storage = await import('#lib/storage/files.ts');
});
afterEach(() => vi.restoreAllMocks());
afterAll(async () => {
  await rt?.stop();
});

/** A CID-shaped string of its own (base32, as the importer's): no two tests share content. */
const newCid = () => `bafkrei${randomUUID().replace(/-/g, '')}${randomUUID().replace(/-/g, '').slice(0, 20)}`;
const at = (minute: number) => new Date(Date.UTC(2026, 0, 1, 0, minute)).toISOString();

function recordOf(userId: string, cid: string, createdAt: string): FileRecord {
  return { id: randomUUID(), userId, cid, filename: 'f.bin', size: 3, checksum: 'ab'.repeat(32), createdAt, zkEnabled: true, commitment: '1', variant: 'A' };
}

/** Stored as an upload stores it: record, lookup item and pin reference in one transaction. */
async function stored(r: FileRecord): Promise<FileRecord> {
  const uploadId = randomUUID();
  expect(await pins.putFileWithPin(r, { cid: r.cid, size: r.size, ref: {} }, uploadId, 's3')).toBe(true);
  await journal.closeJournal(uploadId); // the upload finished: nothing for the sweeper
  return r;
}

/** Stored as the code before lookup items stored it: the record item alone. */
async function legacy(r: FileRecord): Promise<FileRecord> {
  await items.putItem(files.fileItem(r));
  return r;
}

/** The sort keys of the user's lookup partition (lookup items and the marker). */
const lookupKeys = async (userId: string) => (await items.queryPartition(`FILECIDS#${userId}`)).map((i) => i.sk).sort();
const keyOf = (r: FileRecord) => `${r.cid}#${r.createdAt}#${r.id}`;
const marker = (userId: string) => items.getItem({ pk: `FILECIDS#${userId}`, sk: '!INDEXED' });

const notFound = { code: 'CID_NOT_FOUND', status: 404 };

describe('the caller\u2019s newest file by CID', () => {
  it('the newest of two files with the same CID; deleting it answers the older, deleting both 404', async () => {
    const user = randomUUID();
    const cid = newCid();
    const older = await stored(recordOf(user, cid, at(1)));
    const newer = await stored(recordOf(user, cid, at(2)));
    // Newer still, but another CID that begins with this one, and another user's file of this CID.
    const longer = await stored(recordOf(user, `${cid}a`, at(3)));
    await stored(recordOf(randomUUID(), cid, at(4)));
    expect(await lookupKeys(user)).toEqual([keyOf(older), keyOf(newer), keyOf(longer)].sort());

    expect((await storage.ownedFileByCid(user, cid)).id).toBe(newer.id);
    expect(await pins.deleteFileWithPin(newer)).toBe(true);
    expect(await lookupKeys(user)).toEqual([keyOf(older), keyOf(longer)].sort());
    expect((await storage.ownedFileByCid(user, cid)).id).toBe(older.id);
    expect(await pins.deleteFileWithPin(older)).toBe(true);
    await expect(storage.ownedFileByCid(user, cid)).rejects.toMatchObject(notFound);
    expect((await storage.ownedFileByCid(user, `${cid}a`)).id).toBe(longer.id);
  });

  it("another user's CID answers exactly as an unknown CID (404 CID_NOT_FOUND, same body)", async () => {
    const cid = newCid();
    await stored(recordOf(alice.userId, cid, at(5)));
    const foreign = await bob.get(`/api/storage/download/${cid}`);
    const unknown = await bob.get(`/api/storage/download/${newCid()}`);
    expect({ status: foreign.status, body: foreign.json }).toEqual({ status: unknown.status, body: unknown.json });
    expect(foreign.status).toBe(404);
    expect(foreign.json.error).toBe('CID_NOT_FOUND');
    // The route does find Alice's own (it then asks her for the proof it lacks).
    const own = await alice.get(`/api/storage/download/${cid}`);
    expect(own.status).not.toBe(404);
    expect(own.json.error).not.toBe('CID_NOT_FOUND');
  });

  it('records from before lookup items are found: the first miss indexes them all once and sets the marker', async () => {
    const user = randomUUID();
    const [c1, c2, c3] = [newCid(), newCid(), newCid()];
    const a = await legacy(recordOf(user, c1, at(1)));
    const b = await legacy(recordOf(user, c1, at(2)));
    const c = await legacy(recordOf(user, c2, at(3)));
    // More than one backfill transaction's worth (25 records each).
    const many = await Promise.all(Array.from({ length: 30 }, (_, i) => legacy(recordOf(user, newCid(), at(10 + i)))));
    const d = await stored(recordOf(user, c3, at(50)));
    expect(await lookupKeys(user)).toEqual([keyOf(d)]);

    expect((await storage.ownedFileByCid(user, c1)).id).toBe(b.id);
    expect(await lookupKeys(user)).toEqual(['!INDEXED', ...[a, b, c, d, ...many].map(keyOf)].sort());
    expect(await marker(user)).toBeDefined();
    expect((await storage.ownedFileByCid(user, c2)).id).toBe(c.id);
    expect((await storage.ownedFileByCid(user, many[17]!.cid)).id).toBe(many[17]!.id);
    expect((await storage.ownedFileByCid(user, c3)).id).toBe(d.id);
  });

  it('a record deleted between the backfill\u2019s listing and its write gets no lookup item', async () => {
    const user = randomUUID();
    const recs = await Promise.all([1, 2, 3, 4, 5].map((m) => legacy(recordOf(user, newCid(), at(m)))));
    const victim = recs[2]!;
    const send = client.db.send.bind(client.db);
    let deleted = false;
    vi.spyOn(client.db, 'send').mockImplementation((async (command: unknown) => {
      // The backfill's first write for this user: the record goes just before it.
      if (!deleted && command instanceof TransactWriteCommand && JSON.stringify(command.input).includes(`FILECIDS#${user}`)) {
        deleted = true;
        await send(new DeleteCommand({ TableName: client.tableName, Key: files.fileKey(victim.id) }));
      }
      return send(command as never);
    }) as never);

    expect((await storage.ownedFileByCid(user, recs[0]!.cid)).id).toBe(recs[0]!.id);
    expect(deleted).toBe(true);
    expect(await lookupKeys(user)).toEqual(['!INDEXED', ...recs.filter((r) => r !== victim).map(keyOf)].sort());
    await expect(storage.ownedFileByCid(user, victim.cid)).rejects.toMatchObject(notFound);
  });

  it('a lookup item whose record is gone (a delete by older code) is skipped and removed', async () => {
    const user = randomUUID();
    const cid = newCid();
    const older = await stored(recordOf(user, cid, at(1)));
    const gone = recordOf(user, cid, at(2));
    await items.putItem(files.cidLookupItem(gone)); // its record deleted without it
    expect((await storage.ownedFileByCid(user, cid)).id).toBe(older.id);
    expect(await lookupKeys(user)).not.toContain(keyOf(gone));
  });

  it("a record written without a lookup item in the hour after the marker (a deploy's old instance) is still found; after that hour a miss is two reads", async () => {
    const user = randomUUID();
    const first = await stored(recordOf(user, newCid(), clock.now().toISOString()));
    await expect(storage.ownedFileByCid(user, newCid())).rejects.toMatchObject(notFound); // sets the marker
    expect(await marker(user)).toBeDefined();
    advanceClock(20 * 60_000);
    const late = await legacy(recordOf(user, newCid(), clock.now().toISOString()));
    expect((await storage.ownedFileByCid(user, late.cid)).id).toBe(late.id);
    expect(await lookupKeys(user)).toEqual(['!INDEXED', keyOf(first), keyOf(late)].sort());
    // Past the hour the marker is trusted: a record without its lookup item is no longer looked for.
    advanceClock(45 * 60_000);
    const tooLate = await legacy(recordOf(user, newCid(), clock.now().toISOString()));
    await expect(storage.ownedFileByCid(user, tooLate.cid)).rejects.toMatchObject(notFound);
  });

  it('after the marker, a hit and a miss take the same few DynamoDB calls and items whatever the file count', async () => {
    const cost = async (count: number) => {
      const user = randomUUID();
      const recs = await Promise.all(Array.from({ length: count }, (_, i) => legacy(recordOf(user, newCid(), at(i)))));
      await expect(storage.ownedFileByCid(user, newCid())).rejects.toMatchObject(notFound); // indexes, sets the marker
      advanceClock(61 * 60_000); // past the marker's settling hour
      const measure = async (lookup: () => Promise<unknown>) => {
        const send = vi.spyOn(client.db, 'send');
        await lookup().catch(() => undefined);
        // Only the calls naming this user or one of their records: the runtime's scheduled jobs use the same client meanwhile.
        const names = [user, ...recs.map((r) => r.id)];
        const mine = send.mock.calls.flatMap(([command], i) => {
          const input = JSON.stringify((command as { input?: unknown }).input);
          return names.some((n) => input.includes(n)) ? [i] : [];
        });
        let read = 0;
        for (const i of mine) {
          const out = (await send.mock.results[i]!.value) as { Items?: unknown[]; Item?: unknown };
          read += out.Items?.length ?? (out.Item ? 1 : 0);
        }
        send.mockRestore();
        return { calls: mine.length, read };
      };
      const miss = await measure(() => storage.ownedFileByCid(user, newCid()));
      const hit = await measure(() => storage.ownedFileByCid(user, recs[count - 1]!.cid));
      return { miss, hit };
    };
    const few = await cost(3);
    const lots = await cost(120);
    // A miss: the (empty) lookup query and the marker; a hit: the lookup item and the record.
    expect(few).toEqual({ miss: { calls: 2, read: 1 }, hit: { calls: 2, read: 2 } });
    expect(lots).toEqual(few);
  });
});
