/**
 * The storage client's own checks (lib/client/storage.ts), against a fake fetch: the presigned PUT
 * carries the signed headers and no cookie, and a refusal is UPLOAD_FAILED; a listed file without
 * its iv and salt is refused before any proof is made; a list that repeats its cursor stops.
 * The whole flow over HTTP is test/api/storage-npm-start.test.ts and test/cli/receive.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { ShroudClient } from '#lib/client/api.ts';
import { downloadFile, listAllFiles, receiveShared } from '#lib/client/storage.ts';

type Seen = { method: string; url: string; headers: Record<string, string> };

function fakeApi(answer: (s: Seen) => Response) {
  const seen: Seen[] = [];
  const fetch: typeof globalThis.fetch = async (input, init) => {
    const s = { method: init?.method ?? 'GET', url: String(input), headers: { ...(init?.headers as Record<string, string>) } };
    seen.push(s);
    return answer(s);
  };
  const client = new ShroudClient({ baseUrl: 'http://api.test', fetch, cookies: { shroud_session: 'secret-session' }, retries: 0 });
  return { client, seen };
}
const json = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
const file = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  cid: `cid-${id}`,
  originalName: `${id}.bin`,
  originalSize: 10,
  zkEnabled: true,
  createdAt: '2026-11-28T00:00:00.000Z',
  ...extra,
});

describe('the storage client', () => {
  it('puts presigned bytes with the signed headers and without the session cookie; a refusal is UPLOAD_FAILED', async () => {
    for (const [status, expected] of [
      [200, undefined],
      [403, 403],
      [503, 502],
    ] as const) {
      const { client, seen } = fakeApi(() => new Response(null, { status }));
      const put = client.putBytes('https://bucket.test/uploads/x?sig=1', new Uint8Array([1, 2, 3]), { 'if-none-match': '*' });
      if (expected === undefined) await expect(put).resolves.toBeUndefined();
      else await expect(put).rejects.toMatchObject({ code: 'UPLOAD_FAILED', status: expected });
      expect(seen).toEqual([{ method: 'PUT', url: 'https://bucket.test/uploads/x?sig=1', headers: { 'if-none-match': '*' } }]);
    }
  });

  it('refuses a file stored without its iv and salt before proving anything (owner and link alike)', async () => {
    const { client, seen } = fakeApi(() => json({ success: true, files: [file('a')], nextCursor: null }));
    await expect(downloadFile(client, 'a', 'pw')).rejects.toMatchObject({ code: 'NOT_DECRYPTABLE', status: 400 });
    await expect(downloadFile(client, 'cid-a', 'pw')).rejects.toMatchObject({ code: 'NOT_DECRYPTABLE' });
    await expect(downloadFile(client, 'b', 'pw')).rejects.toMatchObject({ code: 'CID_NOT_FOUND', status: 404 });
    const info = { success: true as const, file: { cid: 'c', filename: 'f', size: 1 }, expiresAt: '2026-12-01T00:00:00.000Z' };
    await expect(receiveShared(client, 't'.repeat(43), info, 'pw')).rejects.toMatchObject({ code: 'NOT_DECRYPTABLE' });
    // Only the lists were asked: no artifacts fetched, no proof made, no download.
    expect(seen.every((s) => s.method === 'GET' && s.url.startsWith('http://api.test/api/storage/files'))).toBe(true);
  });

  it('follows the pages, and stops on a cursor answered twice', async () => {
    const pages: Record<string, unknown> = {
      '': { success: true, files: [file('a'), file('b')], nextCursor: 'c1' },
      c1: { success: true, files: [file('c')], nextCursor: null },
    };
    const ok = fakeApi((s) => json(pages[new URL(s.url).searchParams.get('cursor') ?? '']));
    expect((await listAllFiles(ok.client)).map((f) => f.id)).toEqual(['a', 'b', 'c']);
    const stuck = fakeApi(() => json({ success: true, files: [file('a')], nextCursor: 'same' }));
    await expect(listAllFiles(stuck.client)).rejects.toMatchObject({ code: 'INTERNAL_ERROR', status: 502 });
  });
});
