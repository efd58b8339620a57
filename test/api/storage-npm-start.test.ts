/**
 * Over HTTP against the real `npm start`: a file encrypted by the storage client (lib/client/storage.ts)
 * is uploaded (above 4 MiB, so through the presigned URL), listed, shared, resolved through the
 * share link, downloaded with a fresh proof (a 302 to the verified copy) by both download routes and
 * decrypted to the original bytes, then deleted, after which its CID answers CID_NOT_FOUND. A small
 * file takes the direct multipart path the same way.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ShroudClient } from '#lib/client/api.ts';
import { downloadFile, listAllFiles, uploadFile } from '#lib/client/storage.ts';
import { terminateCurves } from '#lib/zk/groth16.ts';
import { HttpClient } from '../support/runtime.ts';
import { sharedNpmStart } from '../support/npm-start.ts';
import { newIdentity, PASSWORD, uniqueName } from './identity-helpers.ts';

// The run's shared npm start (test/support/shared-npm-start.ts, which checks that it stops cleanly);
// starting it is set-up (the hook's time budget), not the test's.
let server: { url: string } | undefined;
beforeAll(async () => {
  server = await sharedNpmStart();
});
afterAll(async () => {
  await terminateCurves(); // proofs are made in this process, as a client makes them
});

describe('npm start serves encrypted storage end to end', () => {
  it('encrypt → upload → list → share → resolve → download with a fresh proof → decrypt → delete → CID_NOT_FOUND', async () => {
    const { url } = server!;
    const http = new HttpClient(url);
    const username = uniqueName();
    const { encrypted } = await newIdentity();
    expect((await http.post('/api/auth/register', { username, password: PASSWORD, ...encrypted })).status).toBe(201);
    expect((await http.post('/api/auth/login', { username, password: PASSWORD })).status).toBe(200);
    const calls: string[] = [];
    const spy: typeof fetch = (input, init) => {
      calls.push(`${init?.method ?? 'GET'} ${String(input)}`);
      return fetch(input, init);
    };
    const client = new ShroudClient({ baseUrl: url, cookies: Object.fromEntries(http.jar), fetch: spy });
    const filePassword = 'correct horse battery staple';

    for (const size of [5 * 1024 * 1024 + 123, 40_000]) {
      const original = new Uint8Array(randomBytes(size));
      calls.length = 0;
      const up = await uploadFile(client, original, filePassword, `story-${size}.bin`, { presignedAbove: 4 * 1024 * 1024 });
      expect(up).toMatchObject({ id: expect.any(String), filename: `story-${size}.bin`, size, encryptedSize: size + 16 });

      const listed = (await listAllFiles(client)).find((f) => f.id === up.id);
      expect(listed).toMatchObject({ cid: up.cid, originalName: `story-${size}.bin`, originalSize: size + 16, zkEnabled: true });

      const share = await client.api.storageShare({ body: { fileId: up.id, expiresIn: 48 } });
      expect(share.shareUrl).toBe(`${url}/share/${share.shareToken}`);
      const anonymous = new HttpClient(url);
      const resolved = await anonymous.get(`/api/storage/shared/${share.shareToken}`);
      expect(resolved.json).toEqual({
        success: true,
        file: { cid: up.cid, filename: `story-${size}.bin`, size: size + 16, iv: expect.any(String), salt: expect.any(String) },
        expiresAt: share.expiresAt,
      });
      // The link itself is a page (lib/web/share.ts decrypts in it); the site has its icon.
      const page = await fetch(share.shareUrl);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
      expect(await page.text()).toMatch(/<script type="module" src="\/web\/share\.js">/);
      expect((await fetch(`${url}/favicon.ico`)).headers.get('content-type')).toBe('image/x-icon');

      const back = await downloadFile(client, up.id, filePassword);
      expect(back.filename).toBe(`story-${size}.bin`);
      expect(Buffer.from(back.bytes).equals(Buffer.from(original))).toBe(true);
      const big = size > 4 * 1024 * 1024;
      // Above 4 MiB: a presigned PUT to the local S3, and the download follows a 302 to the upload's data object.
      expect(calls.some((c) => c.startsWith('PUT http://127.0.0.1:') && c.includes('/uploads/'))).toBe(big);
      expect(calls.some((c) => c.startsWith('GET http://127.0.0.1:') && /\/shards\/[^/]+\/data\?/.test(c))).toBe(big);
      const byCid = await downloadFile(client, up.id, filePassword, { byCid: true });
      expect(Buffer.from(byCid.bytes).equals(Buffer.from(original))).toBe(true);
      expect(calls.some((c) => c === `GET ${url}/api/storage/download/${up.cid}`)).toBe(true);
      await expect(downloadFile(client, up.id, 'not the password')).rejects.toMatchObject({ code: 'INVALID_PROOF', status: 401 });

      expect(await client.api.storageDeleteA({ params: { id: up.id } })).toMatchObject({ deleted: true });
      const after = await http.get(`/api/storage/download/${up.cid}`);
      expect(after.status).toBe(404);
      expect(after.json.error).toBe('CID_NOT_FOUND');
      expect((await anonymous.get(`/api/storage/shared/${share.shareToken}`)).json.error).toBe('CID_NOT_FOUND');
    }
  });
});
