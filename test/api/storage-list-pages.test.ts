import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FileRecord } from '#lib/data/files.ts';
import { startTestRuntime, type HttpClient, type TestRuntime } from '../support/runtime.ts';
import { signedIn } from '../support/storage.ts';

/**
 * Both file lists answer pages of up to 1000 files, newest first, with the next page's cursor:
 * what one call reads and answers stays bounded whatever the owner's file count. The client
 * (lib/client/storage.ts, the CLI's `files`) follows the pages.
 */
let rt: TestRuntime;
let alice: HttpClient & { userId: string };
let bob: HttpClient & { userId: string };
/** Alice's 1001 records, newest first. */
let seeded: FileRecord[];

beforeAll(async () => {
  rt = await startTestRuntime();
  alice = await signedIn(rt);
  bob = await signedIn(rt);
  const { fileItem } = await import('#lib/data/files.ts');
  const { db, tableName } = await import('#lib/data/client.ts');
  // Records only (the list reads nothing else), a minute apart, written 25 to a batch.
  const base = Date.UTC(2026, 0, 1);
  const records: FileRecord[] = Array.from({ length: 1001 }, (_, i) => ({
    id: randomUUID(),
    userId: alice.userId,
    cid: `bafkrei${randomUUID().replace(/-/g, '')}${String(i).padStart(20, '0')}`,
    filename: `f${i}.bin`,
    size: i + 1,
    checksum: 'ab'.repeat(32),
    createdAt: new Date(base + i * 60_000).toISOString(),
    zkEnabled: false,
    iv: 'aXY=',
    salt: 'c2FsdA==',
    variant: 'B',
  }));
  for (let i = 0; i < records.length; i += 25) {
    let unprocessed: Record<string, unknown[]> | undefined = { [tableName]: records.slice(i, i + 25).map((r) => ({ PutRequest: { Item: fileItem(r) } })) };
    while (unprocessed && Object.keys(unprocessed).length) {
      const out = await db.send(new BatchWriteCommand({ RequestItems: unprocessed as never }));
      unprocessed = out.UnprocessedItems as typeof unprocessed;
    }
  }
  seeded = records.reverse();
}, 120_000);
afterAll(async () => {
  await rt?.stop();
});

const ids = (files: { id: string }[]) => files.map((f) => f.id);

describe('storage file lists in pages', () => {
  it('1001 files: the first page holds the newest 1000 and a cursor, the second the last one and null (both variants)', async () => {
    for (const path of ['/api/storage/files', '/api/storage/list']) {
      const first = await alice.get(path);
      expect(first.status, path).toBe(200);
      expect(first.json.files, path).toHaveLength(1000);
      expect(typeof first.json.nextCursor, path).toBe('string');
      const second = await alice.get(`${path}?cursor=${encodeURIComponent(first.json.nextCursor)}`);
      expect(second.json.nextCursor, path).toBeNull();
      expect([...ids(first.json.files), ...ids(second.json.files)], path).toEqual(ids(seeded));
    }
    // Variant B keeps its bare shape, one field more; A its envelope.
    const b = await alice.get('/api/storage/files?limit=1');
    expect(Object.keys(b.json).sort()).toEqual(['files', 'nextCursor']);
    expect(b.json.files[0]).toMatchObject({
      id: seeded[0]!.id,
      originalName: seeded[0]!.filename,
      originalSize: seeded[0]!.size,
      iv: 'aXY=',
      salt: 'c2FsdA==',
    });
    const a = await alice.get('/api/storage/list?limit=1');
    expect(a.json).toMatchObject({ success: true, files: [{ id: seeded[0]!.id, filename: seeded[0]!.filename }] });
  });

  it('smaller pages with limit follow on without gap or repeat; a short list ends with null', async () => {
    const got: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res: { json: { files: { id: string }[]; nextCursor: string | null } } = await alice.get(
        `/api/storage/list?limit=300${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      got.push(...ids(res.json.files));
      cursor = res.json.nextCursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(4);
    expect(got).toEqual(ids(seeded));
    const empty = await bob.get('/api/storage/files');
    expect(empty.json).toEqual({ files: [], nextCursor: null });
  });

  it('400 INVALID_INPUT for a limit out of 1–1000, a cursor that is not one, and a cursor of another user', async () => {
    for (const q of ['limit=0', 'limit=1001', 'limit=ten', 'limit=', 'cursor=not-a-cursor', `cursor=${'x'.repeat(1025)}`]) {
      const res = await alice.get(`/api/storage/files?${q}`);
      expect([res.status, res.json.error], q).toEqual([400, 'INVALID_INPUT']);
    }
    const aliceCursor = (await alice.get('/api/storage/list?limit=1')).json.nextCursor as string;
    const stolen = await bob.get(`/api/storage/list?cursor=${encodeURIComponent(aliceCursor)}`);
    expect([stolen.status, stolen.json.error]).toEqual([400, 'INVALID_INPUT']);
  });

  it("the storage client follows the pages: listAllFiles (the CLI's `files`, the terminal's)", async () => {
    const cookie = alice.jar.get('shroud_session')!;
    const { ShroudClient } = await import('#lib/client/api.ts');
    const { listAllFiles } = await import('#lib/client/storage.ts');
    const shroud = new ShroudClient({ baseUrl: rt.url, cookies: { shroud_session: cookie } });
    expect(ids(await listAllFiles(shroud))).toEqual(ids(seeded));
  });

  it("the assistant's list_files reads one page of 50, not the owner's whole list", async () => {
    const { callTool } = await import('#lib/ai/tools.ts');
    const out = (await callTool({ userId: alice.userId }, 'list_files', {})) as { summary: string; data: { id: string }[] };
    expect(out.summary).toBe('50 files');
    expect(ids(out.data)).toEqual(ids(seeded.slice(0, 50)));
  });
});
