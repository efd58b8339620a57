import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInstance, startSharedServices, type Instance, type SharedServices } from '../support/instances.ts';
import { form, randomBytesOf, sha256 } from '../support/storage.ts';
import { newIdentity, PASSWORD, uniqueName } from './identity-helpers.ts';

/**
 * Two runtime processes on one DynamoDB and one S3, as two Lambda instances share the table and
 * the bucket: whatever must hold across instances (rate limits, unique usernames, files) is kept in
 * the shared services, not in one process's memory.
 */
let shared: SharedServices;
let one: Instance;
let two: Instance;

beforeAll(async () => {
  shared = await startSharedServices();
  [one, two] = await Promise.all([startInstance(shared), startInstance(shared)]);
});
afterAll(async () => {
  await Promise.all([one?.stop(), two?.stop()]);
  await shared?.stop();
});

/** Waits into a fresh minute when the current one is nearly over, so a burst stays inside one rate-limit window. */
async function awayFromWindowEdge(needSeconds = 8) {
  const left = 60 - ((Date.now() / 1000) % 60);
  if (left < needSeconds) await new Promise((r) => setTimeout(r, left * 1000 + 250));
}

describe('two instances on shared data', () => {
  it('a rate limit admits at most its limit across both: 5/min for bug reports, 12 requests split over both → exactly 5', async () => {
    await awayFromWindowEdge();
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => (i % 2 ? one : two).client().get('/api/bug-reports')));
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(7);
    for (const r of results.filter((x) => x.status === 429)) {
      expect(r.json).toEqual({ error: 'RATE_LIMITED', message: expect.any(String) });
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
    }
  });

  it('usernames stay unique under parallel registration through both', async () => {
    const name = uniqueName('twin');
    const { encrypted } = await newIdentity();
    const variants = [name, name.toUpperCase(), name, name.toLowerCase(), name, name.toUpperCase()];
    const results = await Promise.all(
      variants.map((username, i) => (i % 2 ? one : two).client().post('/api/auth/register', { username, password: PASSWORD, ...encrypted })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, 400, 400, 400, 400, 400]);
    for (const r of results.filter((x) => x.status === 400)) expect(r.json.error).toBe('USERNAME_EXISTS');
    const winner = results.find((r) => r.status === 201)!;
    for (const instance of [one, two]) {
      const login = await instance.client().post('/api/auth/login', { username: name, password: PASSWORD });
      expect(login.status).toBe(200);
      expect(login.json.user.id).toBe(winner.json.user.id);
    }
  });

  it('an upload through one is listed, downloadable and shareable through the other', async () => {
    const userId = randomUUID();
    const viaOne = await one.signedIn(userId);
    const viaTwo = await two.signedIn(userId);
    const bytes = randomBytesOf(40_000, 11);
    const fields = { encryptedData: Buffer.from(bytes).toString('base64'), iv: 'aXY=', salt: 'c2FsdA==', filename: 'twin.enc' };
    const up = await viaOne.request('POST', '/api/storage/upload', { body: form({ fields }) });
    expect(up.status, JSON.stringify(up.json)).toBe(201);

    const listed = await viaTwo.get('/api/storage/files');
    expect(listed.json.files.map((x: { id: string }) => x.id)).toContain(up.json.fileId);
    const dl = await viaTwo.post('/api/storage/download', { fileId: up.json.fileId });
    expect(dl.status).toBe(200);
    expect(sha256(new Uint8Array(await dl.res.arrayBuffer()))).toBe(sha256(bytes));

    const share = await viaTwo.post('/api/storage/share', { fileId: up.json.fileId, expiresIn: 1 });
    expect(share.status).toBe(200);
    const resolved = await one.client().get(`/api/storage/shared/${share.json.shareToken}`);
    expect(resolved.json).toMatchObject({
      success: true,
      file: { cid: up.json.cid, filename: 'twin.enc', size: bytes.length },
      expiresAt: share.json.expiresAt,
    });
  });
});
