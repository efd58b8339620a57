import { createHash } from 'node:crypto';
import { CID } from 'multiformats/cid';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { advanceClock, clock } from '#lib/clock.ts';
import { exportContent } from '#lib/storage/cid.ts';
import { startTestRuntime, type HttpClient, type TestRuntime } from '../support/runtime.ts';
import { randomBytesOf, sha256, signedIn, upload } from '../support/storage.ts';

let rt: TestRuntime;
let alice: HttpClient & { userId: string };
let anon: HttpClient;

beforeAll(async () => {
  rt = await startTestRuntime({ RATE_LIMIT_MULTIPLIER: '20' });
  alice = await signedIn(rt);
  anon = rt.client();
});
afterAll(async () => {
  await rt?.stop();
});
beforeEach(() => advanceClock(61_000));

const ivSalt = { iv: Buffer.from('0123456789ab').toString('base64'), salt: Buffer.from('saltsaltsaltsalt').toString('base64') };

async function sharedFile(bytes: Uint8Array, expiresIn: number | string = '10m') {
  const up = await upload(alice, { file: { bytes }, fields: ivSalt });
  expect(up.status).toBe(201);
  const share = await alice.post('/api/storage/share', { fileId: up.json.fileId, expiresIn });
  expect(share.status, JSON.stringify(share.json)).toBe(200);
  return { cid: up.json.cid as string, token: share.json.shareToken as string, expiresAt: share.json.expiresAt as string };
}

function readVarint(b: Uint8Array, at: number): [number, number] {
  let n = 0;
  let shift = 1;
  for (;;) {
    const x = b[at++]!;
    n += (x & 0x7f) * shift;
    if (x < 0x80) return [n, at];
    shift *= 128;
  }
}

/** A CARv1 read the way an IPFS client reads it: every block checked against its CID. */
function readCar(car: Uint8Array) {
  let [len, at] = readVarint(car, 0);
  const header = car.subarray(at, at + len);
  at += len;
  const blocks = new Map<string, Uint8Array>();
  while (at < car.length) {
    [len, at] = readVarint(car, at);
    const section = car.subarray(at, at + len);
    at += len;
    const cid = CID.decodeFirst(section)[0];
    const bytes = section.subarray(cid.bytes.length);
    expect(Buffer.from(createHash('sha256').update(bytes).digest()).equals(Buffer.from(cid.multihash.digest))).toBe(true);
    blocks.set(cid.toString(), bytes);
  }
  return { header, blocks };
}

async function contentOf(root: string, blocks: Map<string, Uint8Array>) {
  const store = {
    async *get(c: CID) {
      const b = blocks.get(c.toString());
      if (!b) throw new Error(`missing ${c}`);
      yield b;
    },
  };
  const parts: Uint8Array[] = [];
  for await (const p of exportContent(root, store)) parts.push(p);
  return Buffer.concat(parts);
}

describe('share expiresIn with a unit', () => {
  it('"600s", "10m", "48h", "7d" are exactly that; a bad unit or range is 400', async () => {
    const up = await upload(alice, { file: { bytes: randomBytesOf(1000, 3) }, fields: ivSalt });
    for (const [given, seconds] of [
      ['600s', 600],
      ['10m', 600],
      ['48h', 172_800],
      ['7d', 604_800],
    ] as const) {
      const res = await alice.post('/api/storage/share', { fileId: up.json.fileId, expiresIn: given });
      expect(res.status, given).toBe(200);
      expect(Math.abs(Date.parse(res.json.expiresAt) - clock.nowMs() - seconds * 1000)).toBeLessThan(10_000);
    }
    for (const bad of ['31d', '30s', '10', '5x', '1.5h']) {
      const res = await alice.post('/api/storage/share', { fileId: up.json.fileId, expiresIn: bad });
      expect(res.status, bad).toBe(400);
      expect(res.json.error).toBe('INVALID_INPUT');
    }
  });
});

describe('trustless gateway GET /api/storage/ipfs/:cid', () => {
  it('answers a CAR of the whole DAG for a file shared by link, with Accept or ?format=car', async () => {
    const bytes = randomBytesOf(2_600_000, 21);
    const { cid, token } = await sharedFile(bytes);
    for (const ask of [
      { q: '&format=car', h: {} as Record<string, string> },
      { q: '', h: { accept: 'application/vnd.ipld.car' } },
    ]) {
      const res = await anon.get(`/api/storage/ipfs/${cid}?token=${token}${ask.q}`, { headers: ask.h });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/vnd\.ipld\.car/);
      const { blocks } = readCar(new Uint8Array(await res.res.arrayBuffer()));
      expect(blocks.size).toBe(4); // root + 3 leaves
      expect(blocks.has(cid)).toBe(true);
      expect(sha256(await contentOf(cid, blocks))).toBe(sha256(bytes));
    }
  });

  it('large files: 302 to the assembled CAR, which checks out the same way', async () => {
    const bytes = randomBytesOf(5_000_000, 22);
    const { cid, token } = await sharedFile(bytes);
    const res = await anon.get(`/api/storage/ipfs/${cid}?token=${token}&format=car`);
    expect(res.status).toBe(302);
    const car = new Uint8Array(await (await fetch(res.headers.get('location')!)).arrayBuffer());
    const { blocks } = readCar(car);
    expect(sha256(await contentOf(cid, blocks))).toBe(sha256(bytes));
  });

  it('refuses without the CAR type, with another CID, an unknown or expired token', async () => {
    const { cid, token } = await sharedFile(randomBytesOf(3000, 23), '600s');
    const { cid: other } = await sharedFile(randomBytesOf(3000, 24));
    expect((await anon.get(`/api/storage/ipfs/${cid}?token=${token}`)).status).toBe(400);
    expect((await anon.get(`/api/storage/ipfs/${other}?token=${token}&format=car`)).json.error).toBe('CID_NOT_FOUND');
    expect((await anon.get(`/api/storage/ipfs/${cid}?token=${'x'.repeat(43)}&format=car`)).status).toBe(404);
    expect((await anon.get(`/api/storage/ipfs/${cid}?format=car`)).status).toBe(400);
    advanceClock(601_000);
    expect((await anon.get(`/api/storage/ipfs/${cid}?token=${token}&format=car`)).status).toBe(410);
  });
});
