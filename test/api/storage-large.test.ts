import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { advanceClock, clock } from '#lib/clock.ts';
// Not imported from lib/init.ts: that would read the configuration before the runtime sets it.
const MAX_FILE_BYTES = 100 * 1024 * 1024;
import { startTestRuntime, type HttpClient, type TestRuntime } from '../support/runtime.ts';
import { objectKeys, partsA, proofOf, randomBytesOf, sha256, signedIn, upload } from '../support/storage.ts';

// The real limits (no RATE_LIMIT_MULTIPLIER): 30 storage calls a minute.
let rt: TestRuntime;
let alice: HttpClient & { userId: string };
beforeAll(async () => {
  rt = await startTestRuntime();
  alice = await signedIn(rt);
});
afterAll(async () => {
  await rt?.stop();
  await (await import('#lib/zk/groth16.ts')).terminateCurves();
});

describe('100 MB', () => {
  it('takes a 100 MB upload and gives it back (302 to the verified copy)', async () => {
    const bytes = randomBytesOf(MAX_FILE_BYTES, 7);
    const res = await upload(alice, { file: { bytes, name: 'hundred.bin' }, fields: await partsA(bytes) });
    expect(res.status, JSON.stringify(res.json)).toBe(201);
    expect(res.json.size).toBe(MAX_FILE_BYTES);
    const p = await proofOf('pw-alpha');
    const dl = await alice.get(`/api/storage/download/${res.json.cid}`, {
      headers: { 'x-zk-proof': JSON.stringify(p.proof), 'x-zk-public-signals': JSON.stringify(p.publicSignals) },
    });
    expect(dl.status).toBe(302);
    const got = new Uint8Array(await (await fetch(dl.headers.get('location')!)).arrayBuffer());
    expect(got.length).toBe(MAX_FILE_BYTES);
    expect(sha256(got)).toBe(sha256(bytes));
  });

  it('refuses 100 MB + 1 byte with 413 FILE_TOO_LARGE and stores nothing', async () => {
    const bytes = randomBytesOf(MAX_FILE_BYTES + 1, 8);
    const stored = async () => [...(await objectKeys('shards/')), ...(await objectKeys('blocks/'))];
    const before = await stored();
    const res = await upload(alice, { file: { bytes }, fields: await partsA(bytes) });
    expect(res.status).toBe(413);
    expect(res.json.error).toBe('FILE_TOO_LARGE');
    expect(await stored()).toEqual(before);
    expect((await alice.get('/api/storage/list')).json.files).toHaveLength(1);
  });
});

describe('rate limit', () => {
  it('holds at 30 storage calls a minute per user', async () => {
    // Start at the beginning of a fixed 60 s window, so that all 31 requests fall into one.
    advanceClock(60_000 - (clock.nowMs() % 60_000) + 100);
    const statuses: number[] = [];
    for (let i = 0; i < 31; i++) statuses.push((await alice.get('/api/storage/files')).status);
    expect(statuses.slice(0, 30).every((s) => s === 200)).toBe(true);
    expect(statuses[30]).toBe(429);
  });
});
