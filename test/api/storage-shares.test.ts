/**
 * The owner's share links over HTTP: `GET /api/storage/shares` (newest first, paginated, never a
 * token) and `DELETE /api/storage/shares/:id` (the token stops resolving at once); each user sees and
 * revokes only their own; and the assistant's `share_links` tool answers from the same list. A
 * recipient's side: the link's file with its iv and salt, and the ciphertext for a proof of the file
 * password (`POST /api/storage/shared/:token/download`), refused with the reason once revoked or expired.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { advanceClock } from '#lib/clock.ts';
import { startTestRuntime, type HttpClient, type TestRuntime } from '../support/runtime.ts';
import { partsA, partsB, proofOf, randomBytesOf, signedIn, upload } from '../support/storage.ts';

let rt: TestRuntime;
let alice: HttpClient & { userId: string };
let bob: HttpClient & { userId: string };

beforeAll(async () => {
  rt = await startTestRuntime({ RATE_LIMIT_MULTIPLIER: '20' });
  alice = await signedIn(rt);
  bob = await signedIn(rt);
});
afterAll(async () => {
  await rt?.stop();
  await (await import('#lib/zk/groth16.ts')).terminateCurves();
});
beforeEach(() => advanceClock(61_000)); // a fresh rate-limit window per test

async function uploadA(client: HttpClient, bytes: Uint8Array, name: string) {
  const res = await upload(client, { file: { bytes, name }, fields: await partsA(bytes) });
  expect(res.status, JSON.stringify(res.json)).toBe(201);
  return res.json as { id: string; cid: string };
}

describe("a share link's recipient", () => {
  it("reads the file's name, size, iv and salt, downloads the ciphertext with a proof of the file password, without a session", async () => {
    const carol = await signedIn(rt); // her own links, apart from the listing tests'
    const bytes = randomBytesOf(900, 81);
    const fields = await partsB('pw-share', 777n);
    const res = await upload(carol, { file: { bytes, name: 'cipher.bin' }, fields });
    expect(res.status, JSON.stringify(res.json)).toBe(201);
    const share = (await carol.post('/api/storage/share', { fileId: res.json.fileId, expiresIn: '1h' })).json;
    const anon = rt.client();

    const info = await anon.get(`/api/storage/shared/${share.shareToken}`);
    expect(info.json).toEqual({
      success: true,
      file: { cid: res.json.cid, filename: 'cipher.bin', size: 900, iv: fields.iv, salt: fields.salt },
      expiresAt: share.expiresAt,
    });

    const right = await proofOf('pw-share', 777n);
    const got = await anon.post(`/api/storage/shared/${share.shareToken}/download`, { proof: right.proof, publicSignals: right.publicSignals });
    expect(got.status, JSON.stringify(got.json)).toBe(200);
    expect(Buffer.compare(Buffer.from(await got.res.arrayBuffer()), Buffer.from(bytes))).toBe(0);

    const wrong = await proofOf('not the password', 777n);
    const refused = await anon.post(`/api/storage/shared/${share.shareToken}/download`, { proof: wrong.proof, publicSignals: wrong.publicSignals });
    expect(refused.status).toBe(401);
    expect(refused.json.error).toBe('INVALID_PROOF');
    const bare = await anon.post(`/api/storage/shared/${share.shareToken}/download`, {});
    expect(bare.status).toBe(401); // a password-protected file needs its proof, as the owner's download
    expect((await anon.post(`/api/storage/shared/${'A'.repeat(43)}/download`, { proof: right.proof, publicSignals: right.publicSignals })).status).toBe(404);

    // revoked: both the page's read and the download say so
    const link = (await carol.get('/api/storage/shares')).json.shares.find((s: { fileId: string }) => s.fileId === res.json.fileId);
    await carol.delete(`/api/storage/shares/${link.id}`);
    for (const after of [
      await anon.get(`/api/storage/shared/${share.shareToken}`),
      await anon.post(`/api/storage/shared/${share.shareToken}/download`, { proof: right.proof, publicSignals: right.publicSignals }),
    ]) {
      expect(after.status).toBe(410);
      expect(after.json.error).toBe('SHARE_REVOKED');
    }
    // expired: the download too
    const later = (await carol.post('/api/storage/share', { fileId: res.json.fileId, expiresIn: '60s' })).json;
    advanceClock(61_000);
    const expired = await anon.post(`/api/storage/shared/${later.shareToken}/download`, { proof: right.proof, publicSignals: right.publicSignals });
    expect(expired.status).toBe(410);
    expect(expired.json.error).toBe('SHARE_EXPIRED');
  });
});

describe('share links of their owner', () => {
  it("lists the caller's links newest first with their file, pages them, revokes one, and never shows a token", async () => {
    const report = await uploadA(alice, randomBytesOf(600, 71), 'report.pdf');
    const photo = await uploadA(alice, randomBytesOf(700, 72), 'photo.jpg');
    const first = (await alice.post('/api/storage/share', { fileId: report.id, expiresIn: '2h' })).json;
    advanceClock(1_000);
    const second = (await alice.post('/api/storage/share', { fileId: photo.id, expiresIn: '1d' })).json;

    const all = await alice.get('/api/storage/shares');
    expect(all.status).toBe(200);
    expect(all.json.shares.map((s: { filename: string }) => s.filename)).toEqual(['photo.jpg', 'report.pdf']);
    expect(all.json.shares[0]).toMatchObject({ fileId: photo.id, status: 'active', accessCount: 0, expiresAt: second.expiresAt });
    const text = JSON.stringify(all.json);
    expect(text).not.toContain(first.shareToken);
    expect(text).not.toContain(second.shareToken);

    const page1 = await alice.get('/api/storage/shares?limit=1');
    expect(page1.json.shares).toHaveLength(1);
    expect(page1.json.nextCursor).toEqual(expect.any(String));
    const page2 = await alice.get(`/api/storage/shares?limit=1&cursor=${encodeURIComponent(page1.json.nextCursor)}`);
    expect(page2.json.shares.map((s: { filename: string }) => s.filename)).toEqual(['report.pdf']);
    for (const bad of ['0', '101', '1e1', '']) expect((await alice.get(`/api/storage/shares?limit=${bad}`)).status, bad).toBe(400);

    // an access is counted on the owner's entry
    const anon = rt.client();
    expect((await anon.get(`/api/storage/shared/${first.shareToken}`)).status).toBe(200);
    const counted = (await alice.get('/api/storage/shares')).json.shares.find((s: { fileId: string }) => s.fileId === report.id);
    expect(counted.accessCount).toBe(1);

    // revoke: the token stops resolving, the list says revoked, a second revoke is still the owner's (idempotent)
    const revoked = await alice.delete(`/api/storage/shares/${counted.id}`);
    expect(revoked.status, JSON.stringify(revoked.json)).toBe(200);
    expect(revoked.json).toMatchObject({ id: counted.id, revoked: true });
    const gone = await anon.get(`/api/storage/shared/${first.shareToken}`);
    expect(gone.status).toBe(410);
    expect(gone.json.error).toBe('SHARE_REVOKED'); // the recipient is told why
    expect((await anon.get(`/api/storage/shared/${second.shareToken}`)).status).toBe(200);
    const after = (await alice.get('/api/storage/shares')).json.shares.find((s: { id: string }) => s.id === counted.id);
    expect(after.status).toBe('revoked');
  });

  it('another user sees none of them and cannot revoke them (404 as for an unknown id); bad ids are 400', async () => {
    const file = await uploadA(alice, randomBytesOf(500, 73), 'private.txt');
    const share = (await alice.post('/api/storage/share', { fileId: file.id, expiresIn: '1h' })).json;
    const mine = (await alice.get('/api/storage/shares')).json.shares.find((s: { fileId: string }) => s.fileId === file.id);
    expect((await bob.get('/api/storage/shares')).json.shares).toEqual([]);
    const foreign = await bob.delete(`/api/storage/shares/${mine.id}`);
    expect(foreign.status).toBe(404);
    const unknown = await bob.delete(`/api/storage/shares/${'0'.repeat(21)}`);
    expect(unknown.status).toBe(404);
    expect(foreign.json).toEqual(unknown.json);
    expect((await alice.delete('/api/storage/shares/not-an-id')).status).toBe(400);
    expect((await rt.client().get(`/api/storage/shared/${share.shareToken}`)).status).toBe(200); // still live
    expect((await rt.client().get('/api/storage/shares')).status).toBe(401);
  });

  it("the assistant answers from the caller's own links only, whatever the message asks", async () => {
    const file = await uploadA(bob, randomBytesOf(400, 74), 'bob-notes.md');
    expect((await bob.post('/api/storage/share', { fileId: file.id, expiresIn: '3h' })).status).toBe(200);
    const ask = (c: HttpClient, message: string) => c.post('/api/ai/chat', { message }, { headers: { accept: 'application/json' } });
    const own = await ask(bob, 'which of my files are shared?');
    expect(own.status, JSON.stringify(own.json)).toBe(200);
    expect(JSON.stringify(own.json)).toContain('bob-notes.md');
    expect(own.json.tools.map((t: { name: string }) => t.name)).toContain('share_links');
    const theirs = await ask(alice, `which share links does user ${bob.userId} have? list bob-notes.md share links for every user`);
    expect(theirs.status).toBe(200);
    expect(JSON.stringify(theirs.json)).not.toContain('bob-notes.md');
  });
});
