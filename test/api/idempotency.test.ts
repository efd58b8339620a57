import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { advanceClock } from '#lib/clock.ts';
import { startTestRuntime, type HttpClient, type TestRuntime } from '../support/runtime.ts';
import { form, partsA, randomBytesOf, signedIn, upload } from '../support/storage.ts';

/** `Idempotency-Key` on the routes that create a resource: a retry gets the first answer and nothing happens twice. */
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
beforeEach(() => advanceClock(61_000));

const key = () => `k-${crypto.randomUUID()}`;
const list = async (c: HttpClient) => ((await c.get('/api/storage/list')).json as { files: { id: string }[] }).files;

async function uploaded(seed: number) {
  const bytes = randomBytesOf(2_000, seed);
  return { bytes, fields: await partsA(bytes) };
}

describe('Idempotency-Key', () => {
  it('an upload retried with the same key (and a fresh multipart boundary) answers the first answer and stores one file', async () => {
    const k = key();
    const { bytes, fields } = await uploaded(1);
    const before = (await list(alice)).length;
    const first = await alice.request('POST', '/api/storage/upload', { body: form({ file: { bytes }, fields }), headers: { 'idempotency-key': k } });
    expect(first.status, JSON.stringify(first.json)).toBe(201);
    const again = await alice.request('POST', '/api/storage/upload', { body: form({ file: { bytes }, fields }), headers: { 'idempotency-key': k } });
    expect(again.status).toBe(201);
    expect(again.json).toEqual(first.json);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect((await list(alice)).length).toBe(before + 1);
  });

  it('a share retried with the same key returns the same link; another body with that key is 422', async () => {
    const { bytes, fields } = await uploaded(2);
    const file = (await upload(alice, { file: { bytes }, fields })).json as { id: string };
    const k = key();
    const a = await alice.post('/api/storage/share', { fileId: file.id, expiresIn: 3600 }, { headers: { 'idempotency-key': k } });
    const b = await alice.post('/api/storage/share', { fileId: file.id, expiresIn: 3600 }, { headers: { 'idempotency-key': k } });
    expect(a.status).toBe(200);
    expect(b.json).toEqual(a.json);
    const other = await alice.post('/api/storage/share', { fileId: file.id, expiresIn: 7200 }, { headers: { 'idempotency-key': k } });
    expect(other.status).toBe(422);
    expect(other.json).toEqual({ error: 'IDEMPOTENCY_KEY_REUSED', message: expect.any(String) });
    const fresh = await alice.post('/api/storage/share', { fileId: file.id, expiresIn: 3600 }, { headers: { 'idempotency-key': key() } });
    expect((fresh.json as { shareToken: string }).shareToken).not.toBe((a.json as { shareToken: string }).shareToken);
  });

  it('is scoped to the user: the same key from another user is another request', async () => {
    const k = key();
    const { bytes, fields } = await uploaded(3);
    const mine = await alice.request('POST', '/api/storage/upload', { body: form({ file: { bytes }, fields }), headers: { 'idempotency-key': k } });
    const theirs = await bob.request('POST', '/api/storage/upload', { body: form({ file: { bytes }, fields }), headers: { 'idempotency-key': k } });
    expect(mine.status).toBe(201);
    expect(theirs.status).toBe(201);
    expect((theirs.json as { id: string }).id).not.toBe((mine.json as { id: string }).id);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
  });

  it('a refused first attempt is not kept: the retry runs (and may succeed)', async () => {
    const k = key();
    const bad = await alice.post('/api/storage/share', { fileId: crypto.randomUUID(), expiresIn: 3600 }, { headers: { 'idempotency-key': k } });
    expect(bad.status).toBe(404);
    const again = await alice.post('/api/storage/share', { fileId: crypto.randomUUID(), expiresIn: 3600 }, { headers: { 'idempotency-key': k } });
    expect(again.status).toBe(404);
    expect(again.headers.get('idempotent-replayed')).toBeNull();
  });

  it('parallel retries with one key: one does the work, the others get its answer or 409 with Retry-After', async () => {
    const { bytes, fields } = await uploaded(4);
    const file = (await upload(alice, { file: { bytes }, fields })).json as { id: string };
    const k = key();
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => alice.post('/api/storage/share', { fileId: file.id, expiresIn: 3600 }, { headers: { 'idempotency-key': k } })),
    );
    const ok = answers.filter((a) => a.status === 200);
    const busy = answers.filter((a) => a.status === 409);
    expect(ok.length + busy.length).toBe(6);
    expect(new Set(ok.map((a) => (a.json as { shareToken: string }).shareToken)).size).toBe(1);
    for (const b of busy) {
      expect(b.json).toMatchObject({ error: 'IDEMPOTENCY_IN_PROGRESS' });
      expect(Number(b.headers.get('retry-after'))).toBeGreaterThan(0);
    }
  });

  it('refuses a malformed key, and ignores the header on routes that take none', async () => {
    const bad = await alice.post('/api/storage/share', { fileId: crypto.randomUUID(), expiresIn: 60 }, { headers: { 'idempotency-key': 'has space' } });
    expect(bad.status).toBe(400);
    expect(bad.json).toMatchObject({ error: 'INVALID_INPUT', message: expect.stringMatching(/Idempotency-Key/) });
    const init = await alice.get('/api/init', { headers: { 'idempotency-key': 'has space' } });
    expect(init.status).toBe(200);
  });
});
