import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { advanceClock } from '#lib/clock.ts';
import { startTestRuntime, type HttpClient, type TestRuntime } from '../support/runtime.ts';
import { form, objectKeys, partsA, partsB, proofOf, randomBytesOf, sha256, signedIn, upload } from '../support/storage.ts';

let rt: TestRuntime;
let alice: HttpClient & { userId: string };
let bob: HttpClient & { userId: string };
let s3: S3Client;
let bucketName: string;

beforeAll(async () => {
  rt = await startTestRuntime({ RATE_LIMIT_MULTIPLIER: '20' });
  alice = await signedIn(rt);
  bob = await signedIn(rt);
  bucketName = (await import('#lib/config.ts')).config.BUCKET_NAME;
  s3 = new S3Client({
    region: 'us-east-1',
    endpoint: process.env.S3_ENDPOINT,
    forcePathStyle: true,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  });
});
afterAll(async () => {
  s3?.destroy();
  await rt?.stop();
  await (await import('#lib/zk/groth16.ts')).terminateCurves();
});
beforeEach(() => advanceClock(61_000)); // a fresh rate-limit window per test

const proofHeaders = async (password = 'pw-alpha') => {
  const p = await proofOf(password);
  return { 'x-zk-proof': JSON.stringify(p.proof), 'x-zk-public-signals': JSON.stringify(p.publicSignals) };
};
const proofBody = async (password = 'pw-alpha') => {
  const p = await proofOf(password);
  return { proof: p.proof, publicSignals: p.publicSignals };
};
const bytesOf = async (res: { res: Response }) => new Uint8Array(await res.res.arrayBuffer());
/** Every stored content object: the CAR layout's shards and the per-block layout's blocks. */
const storedObjects = async () => [...(await objectKeys('shards/')), ...(await objectKeys('blocks/'))];

/** Where a pinned CID's leaf (the `nth` raw block of the shard index) is: its object's key, offset and length. */
async function leafLocation(cid: string, nth = 0) {
  const { getPin } = await import('#lib/storage/pins.ts');
  const owner = (await getPin(cid))!.ref.owner!;
  const { objectKey } = await import('#lib/storage/shards.ts');
  const index = JSON.parse(await (await s3.send(new GetObjectCommand({ Bucket: bucketName, Key: `shards/${owner}/index.json` }))).Body!.transformToString());
  const [leaf, [object, offset, length]] = Object.entries(index.blocks as Record<string, [number, number, number]>).filter(([b]) => b.startsWith('bafkrei'))[
    nth
  ]!;
  return { owner, leaf, key: objectKey(owner, index.version, object), offset, length };
}

/** Runs `fn` with uploads stored in the per-block layout (as before shards), then back to today's. */
async function inPerBlockLayout<T>(fn: () => Promise<T>): Promise<T> {
  const { setPinning } = await import('#lib/storage/pinning.ts');
  const { S3Pinning } = await import('#lib/storage/pinning-s3.ts');
  setPinning(new S3Pinning(undefined, 'blocks'));
  try {
    return await fn();
  } finally {
    setPinning(undefined);
  }
}

/** Flips one byte of a stored object; returns the undo. */
async function corruptByte(key: string, at: number) {
  const original = await (await s3.send(new GetObjectCommand({ Bucket: bucketName, Key: key }))).Body!.transformToByteArray();
  const corrupted = original.slice();
  corrupted[at] ^= 0xff;
  await s3.send(new PutObjectCommand({ Bucket: bucketName, Key: key, Body: corrupted }));
  return () => s3.send(new PutObjectCommand({ Bucket: bucketName, Key: key, Body: original }));
}

async function uploadA(client: HttpClient, bytes: Uint8Array, name = 'cipher.bin') {
  const res = await upload(client, { file: { bytes, name }, fields: await partsA(bytes) });
  expect(res.status, JSON.stringify(res.json)).toBe(201);
  return res.json as { id: string; cid: string; filename: string; size: number; checksum: string };
}
async function uploadB(client: HttpClient, bytes: Uint8Array, name = 'cipher.bin') {
  const res = await upload(client, { file: { bytes, name }, fields: await partsB() });
  expect(res.status, JSON.stringify(res.json)).toBe(201);
  return res.json as { fileId: string; cid: string; originalName: string; originalSize: number; zkEnabled: boolean };
}

describe('round trips', () => {
  it('variant A: upload, list in both shapes, download with the proof in headers, delete', async () => {
    const bytes = randomBytesOf(300_000, 11);
    const up = await uploadA(alice, bytes, 'report.pdf.enc');
    expect(up).toEqual({
      success: true,
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      cid: expect.stringMatching(/^bafkrei/), // one block: the raw leaf is the root
      filename: 'report.pdf.enc',
      size: bytes.length,
      checksum: `sha256:${sha256(bytes)}`,
    });

    const listA = await alice.get('/api/storage/list');
    expect(listA.json).toEqual({
      success: true,
      files: [
        expect.objectContaining({
          id: up.id,
          cid: up.cid,
          filename: 'report.pdf.enc',
          size: bytes.length,
          checksum: up.checksum,
          createdAt: expect.any(String),
        }),
      ],
      nextCursor: null,
    });
    const listB = await alice.get('/api/storage/files');
    expect(listB.json.success).toBeUndefined();
    expect(listB.json.files).toEqual([
      { id: up.id, cid: up.cid, originalName: 'report.pdf.enc', originalSize: bytes.length, zkEnabled: true, createdAt: listA.json.files[0].createdAt },
    ]);

    const dl = await alice.get(`/api/storage/download/${up.cid}`, { headers: await proofHeaders() });
    expect(dl.status).toBe(200);
    expect(dl.headers.get('content-type')).toBe('application/octet-stream');
    expect(dl.headers.get('content-disposition')).toMatch(/^attachment; filename="report\.pdf\.enc"/);
    expect(sha256(await bytesOf(dl))).toBe(sha256(bytes));

    const del = await alice.delete(`/api/storage/${up.id}`);
    expect(del.json).toEqual({ success: true, deleted: true });
    const after = await alice.get(`/api/storage/download/${up.cid}`, { headers: await proofHeaders() });
    expect(after.status).toBe(404);
    expect(after.json.error).toBe('CID_NOT_FOUND');
  });

  it('variant B: upload keeps iv and salt, download by POST, delete', async () => {
    const bytes = randomBytesOf(50_000, 12);
    const up = await uploadB(alice, bytes, 'notes.enc');
    expect(up).toEqual({
      success: true,
      cid: expect.any(String),
      fileId: expect.any(String),
      originalName: 'notes.enc',
      originalSize: bytes.length,
      zkEnabled: true,
    });
    const listed = (await alice.get('/api/storage/files')).json.files.find((f: { id: string }) => f.id === up.fileId);
    expect(listed).toMatchObject({ iv: Buffer.from('0123456789ab').toString('base64'), salt: Buffer.from('saltsaltsaltsalt').toString('base64') });

    const dl = await alice.post('/api/storage/download', { fileId: up.fileId, ...(await proofBody()) });
    expect(dl.status).toBe(200);
    expect(sha256(await bytesOf(dl))).toBe(sha256(bytes));

    const del = await alice.delete(`/api/storage/files/${up.fileId}`);
    expect(del.json).toEqual({ success: true, message: expect.any(String) });
    const after = await alice.post('/api/storage/download', { fileId: up.fileId, ...(await proofBody()) });
    expect(after.json.error).toBe('CID_NOT_FOUND');
  });

  it('across variants: A upload → B list, download, delete; B upload → A list, download, delete', async () => {
    const a = randomBytesOf(70_000, 13);
    const upA = await uploadA(alice, a);
    const viaB = await alice.post('/api/storage/download', { fileId: upA.id, ...(await proofBody()) });
    expect(sha256(await bytesOf(viaB))).toBe(sha256(a));
    expect((await alice.delete(`/api/storage/files/${upA.id}`)).status).toBe(200);

    const b = randomBytesOf(80_000, 14);
    const upB = await uploadB(alice, b);
    const listA = (await alice.get('/api/storage/list')).json.files;
    expect(listA.find((f: { id: string }) => f.id === upB.fileId)).toMatchObject({ cid: upB.cid, checksum: `sha256:${sha256(b)}`, size: b.length });
    const viaA = await alice.get(`/api/storage/download/${upB.cid}`, { headers: await proofHeaders() });
    expect(sha256(await bytesOf(viaA))).toBe(sha256(b));
    expect((await alice.delete(`/api/storage/${upB.fileId}`)).json.deleted).toBe(true);
    expect((await alice.get(`/api/storage/download/${upB.cid}`, { headers: await proofHeaders() })).json.error).toBe('CID_NOT_FOUND');
  });

  it('lists newest first', async () => {
    const c = await signedIn(rt);
    const first = await uploadA(c, randomBytesOf(1000, 21));
    const second = await uploadB(c, randomBytesOf(1000, 22));
    const ids = (await c.get('/api/storage/list')).json.files.map((f: { id: string }) => f.id);
    expect(ids).toEqual([second.fileId, first.id]);
  });

  it('variant B with the ciphertext as base64 encryptedData, and without a proof (zkEnabled false)', async () => {
    const bytes = randomBytesOf(5000, 15);
    const res = await upload(alice, { fields: { encryptedData: Buffer.from(bytes).toString('base64'), iv: 'aXY=', salt: 'c2FsdA==', filename: 'plain.enc' } });
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({ originalName: 'plain.enc', originalSize: bytes.length, zkEnabled: false });
    const dl = await alice.post('/api/storage/download', { fileId: res.json.fileId });
    expect(sha256(await bytesOf(dl))).toBe(sha256(bytes));
    // A file without a password ignores a proof sent along, a malformed or a wrong one alike.
    const junk = await alice.post('/api/storage/download', { fileId: res.json.fileId, proof: { pi_a: 'x' }, publicSignals: ['1'] });
    expect(sha256(await bytesOf(junk))).toBe(sha256(bytes));
    const wrong = await alice.post('/api/storage/download', { fileId: res.json.fileId, ...(await proofBody('wrong-password')) });
    expect(sha256(await bytesOf(wrong))).toBe(sha256(bytes));
  });

  it('verifies the proof before storing anything, whatever the order of the parts', async () => {
    const bytes = randomBytesOf(40_000, 16);
    const before = await storedObjects();
    const bad = { ...(await partsA(bytes)), commitment: (await proofOf('someone-else')).commitment };
    const res = await upload(alice, { file: { bytes }, fields: bad, fileFirst: true });
    expect(res.status).toBe(401);
    expect(res.json.error).toBe('INVALID_PROOF');
    expect(await storedObjects()).toEqual(before);
    const ok = await upload(alice, { file: { bytes }, fields: await partsA(bytes), fileFirst: true });
    expect(ok.status).toBe(201);
  });

  it('parts after the file part count: a late one that breaks the proof drops the staged file; a late filename is kept', async () => {
    // The parts before the file authorise it, so it streams into the shards as it arrives (lib/storage/uploads.ts).
    const bytes = randomBytesOf(2_500_000, 18);
    const before = await storedObjects();
    const late = form({ file: { bytes }, fields: await partsA(bytes) });
    late.append('commitment', (await proofOf('someone-else')).commitment); // replaces the earlier one
    const res = await alice.request('POST', '/api/storage/upload', { body: late });
    expect(res.status).toBe(401);
    expect(res.json.error).toBe('INVALID_PROOF');
    expect(await storedObjects()).toEqual(before);

    const named = form({ file: { bytes, name: 'part.bin' }, fields: await partsA(bytes) });
    named.append('filename', 'late-name.bin');
    const ok = await alice.request('POST', '/api/storage/upload', { body: named });
    expect(ok.status).toBe(201);
    expect(ok.json.filename).toBe('late-name.bin');
    const dl = await alice.post('/api/storage/download', { fileId: ok.json.id, ...(await proofBody()) });
    expect(sha256(await bytesOf(dl))).toBe(sha256(bytes));
  });

  it('a file part that comes before its proof goes to a temporary file, which is removed whatever the outcome', async () => {
    // os.tmpdir() follows TMPDIR: a directory of this test's own, so other processes' files do not count.
    const dir = mkdtempSync(join(tmpdir(), 'shroud-spool-test-'));
    const saved = process.env.TMPDIR;
    process.env.TMPDIR = dir;
    try {
      const bytes = randomBytesOf(3_000_000, 20);
      const bad = { ...(await partsA(bytes)), commitment: (await proofOf('someone-else')).commitment };
      expect((await upload(alice, { file: { bytes }, fields: bad, fileFirst: true })).status).toBe(401);
      expect(readdirSync(dir)).toEqual([]);
      const ok = await upload(alice, { file: { bytes }, fields: await partsA(bytes), fileFirst: true });
      expect(ok.status).toBe(201);
      expect(readdirSync(dir)).toEqual([]);
    } finally {
      if (saved === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = saved;
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a streamed upload answered early (no session) is drained: the same connection serves the next request', async () => {
    const anon = rt.client();
    const bytes = randomBytesOf(5_000_000, 21);
    expect((await upload(anon, { file: { bytes }, fields: await partsA(bytes) })).status).toBe(401);
    expect((await anon.get('/api/storage/list')).status).toBe(401);
    expect((await alice.get('/api/storage/list')).status).toBe(200);
  });

  it('an upload with Idempotency-Key (its body buffered for the fingerprint) stores once and replays', async () => {
    const bytes = randomBytesOf(1_500_000, 19);
    const fields = await partsA(bytes);
    const headers = { 'idempotency-key': `upload-${Date.now()}` };
    const first = await alice.request('POST', '/api/storage/upload', { body: form({ file: { bytes }, fields }), headers });
    expect(first.status).toBe(201);
    const again = await alice.request('POST', '/api/storage/upload', { body: form({ file: { bytes }, fields }), headers });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.json.id).toBe(first.json.id);
  });

  it('accepts the checksum with or without the sha256: prefix, in any hex case', async () => {
    const bytes = randomBytesOf(2000, 17);
    const fields = { ...(await partsA(bytes)), checksum: sha256(bytes).toUpperCase() };
    const res = await upload(alice, { file: { bytes }, fields });
    expect(res.status).toBe(201);
    expect(res.json.checksum).toBe(`sha256:${sha256(bytes)}`);
  });
});

describe('errors', () => {
  it('CHECKSUM_MISMATCH on upload leaves no block, record or pin behind', async () => {
    const bytes = randomBytesOf(2_500_000, 31); // three blocks
    const blocksBefore = await storedObjects();
    const filesBefore = (await alice.get('/api/storage/list')).json.files.length;
    const res = await upload(alice, { file: { bytes }, fields: { ...(await partsA(bytes)), checksum: sha256(new Uint8Array([1])) } });
    expect(res.status).toBe(422);
    expect(res.json).toEqual({ error: 'CHECKSUM_MISMATCH', message: expect.any(String) });
    expect(await storedObjects()).toEqual(blocksBefore);
    expect((await alice.get('/api/storage/list')).json.files.length).toBe(filesBefore);
    const { getPin } = await import('#lib/storage/pins.ts');
    const { cidOf } = await import('#lib/storage/cid.ts');
    expect(await getPin(await cidOf(bytes))).toBeUndefined();
  });

  it('INVALID_PROOF: a wrong password on upload and on download, a tampered proof; 400 for a malformed one', async () => {
    const bytes = randomBytesOf(3000, 32);
    const up = await uploadA(alice, bytes);
    const wrong = await proofOf('wrong-password');
    const h = { 'x-zk-proof': JSON.stringify(wrong.proof), 'x-zk-public-signals': JSON.stringify(wrong.publicSignals) };
    const dlA = await alice.get(`/api/storage/download/${up.cid}`, { headers: h });
    expect(dlA.status).toBe(401);
    expect(dlA.json.error).toBe('INVALID_PROOF');
    const dlB = await alice.post('/api/storage/download', { fileId: up.id, proof: wrong.proof, publicSignals: wrong.publicSignals });
    expect(dlB.json.error).toBe('INVALID_PROOF');
    // The right commitment as public signal, but a proof made for another: does not verify.
    const right = await proofOf('pw-alpha');
    const forged = await alice.post('/api/storage/download', { fileId: up.id, proof: wrong.proof, publicSignals: right.publicSignals });
    expect(forged.json.error).toBe('INVALID_PROOF');
    const none = await alice.post('/api/storage/download', { fileId: up.id });
    expect(none.json.error).toBe('INVALID_PROOF');
    const malformed = await alice.post('/api/storage/download', { fileId: up.id, proof: { pi_a: 'x' }, publicSignals: right.publicSignals });
    expect(malformed.status).toBe(400);
    expect(malformed.json.error).toBe('INVALID_INPUT');
    const notJson = await alice.get(`/api/storage/download/${up.cid}`, {
      headers: { 'x-zk-proof': '{not json', 'x-zk-public-signals': JSON.stringify(right.publicSignals) },
    });
    expect([notJson.status, notJson.json.error]).toEqual([400, 'INVALID_INPUT']);
    const upWrong = await upload(alice, { file: { bytes }, fields: { ...(await partsA(bytes)), proof: JSON.stringify(wrong.proof) } });
    expect(upWrong.json.error).toBe('INVALID_PROOF');
  });

  it("someone else's file answers exactly as an unknown one (404, same body) by id and by CID", async () => {
    const bytes = randomBytesOf(3000, 33);
    const up = await uploadA(alice, bytes);
    const unknownId = '00000000-0000-4000-8000-000000000000';
    const unknownCid = 'bafkreifzjut3te2nhyekklss27nh3k72ysco7y32koao5eei66wof36n5e';
    const asBob = {
      download: async (id: string) => bob.post('/api/storage/download', { fileId: id, ...(await proofBody()) }),
      downloadCid: async (cid: string) => bob.get(`/api/storage/download/${cid}`, { headers: await proofHeaders() }),
      deleteA: (id: string) => bob.delete(`/api/storage/${id}`),
      deleteB: (id: string) => bob.delete(`/api/storage/files/${id}`),
      share: (id: string) => bob.post('/api/storage/share', { fileId: id, expiresIn: 1 }),
    };
    const answer = (r: { status: number; json: unknown }) => ({ status: r.status, body: r.json });
    for (const [name, call] of Object.entries(asBob)) {
      const foreign = answer(await call(name === 'downloadCid' ? up.cid : up.id));
      const unknown = answer(await call(name === 'downloadCid' ? unknownCid : unknownId));
      expect(foreign, name).toEqual(unknown);
      expect(foreign.status, name).toBe(404);
      expect((foreign.body as { error: string }).error, name).toBe('CID_NOT_FOUND');
    }
    expect((await bob.get('/api/storage/list')).json.files.find((f: { id: string }) => f.id === up.id)).toBeUndefined();
    // Nothing of Alice's moved: her file is still there and hers.
    expect((await alice.post('/api/storage/download', { fileId: up.id, ...(await proofBody()) })).status).toBe(200);
  });

  it('CID_NOT_FOUND for an unknown CID or file id; 401 without a session', async () => {
    const unknown = await alice.get('/api/storage/download/bafkreifzjut3te2nhyekklss27nh3k72ysco7y32koao5eei66wof36n5e', { headers: await proofHeaders() });
    expect(unknown.json.error).toBe('CID_NOT_FOUND');
    expect((await alice.post('/api/storage/download', { fileId: 'nope', ...(await proofBody()) })).json.error).toBe('CID_NOT_FOUND');
    // An unknown file is 404 whatever the proof: a malformed one is not looked at first.
    const malformed = await alice.post('/api/storage/download', { fileId: 'nope', proof: { pi_a: 'x' }, publicSignals: ['1'] });
    expect([malformed.status, malformed.json.error]).toEqual([404, 'CID_NOT_FOUND']);
    expect((await alice.post('/api/storage/download', { fileId: 'nope' })).json.error).toBe('CID_NOT_FOUND');
    const notJson = await alice.get('/api/storage/download/bafkreifzjut3te2nhyekklss27nh3k72ysco7y32koao5eei66wof36n5e', {
      headers: { 'x-zk-proof': '{not json', 'x-zk-public-signals': '[' },
    });
    expect([notJson.status, notJson.json.error]).toEqual([404, 'CID_NOT_FOUND']);
    expect((await alice.delete('/api/storage/files/nope')).json.error).toBe('CID_NOT_FOUND');
    const anon = rt.client();
    expect((await anon.get('/api/storage/list')).status).toBe(401);
    expect((await upload(anon, { file: { bytes: new Uint8Array([1]) }, fields: {} })).status).toBe(401);
  });

  it('INVALID_INPUT for malformed uploads', async () => {
    const bytes = randomBytesOf(100, 34);
    const noFile = await upload(alice, { fields: await partsA(bytes) });
    expect(noFile.status).toBe(400);
    const badSum = await upload(alice, { file: { bytes }, fields: { ...(await partsA(bytes)), checksum: 'md5:abc' } });
    expect(badSum.status).toBe(400);
    const partial = await upload(alice, { file: { bytes }, fields: { checksum: sha256(bytes), commitment: '1' } });
    expect(partial.status).toBe(400);
    const json = await alice.post('/api/storage/upload', { file: 'x' });
    expect(json.status).toBe(400);
  });

  it('FILE_TOO_LARGE for a declared presigned size over 100 MB', async () => {
    const res = await alice.post('/api/storage/upload-url', { size: 100 * 1024 * 1024 + 1 });
    expect(res.status).toBe(413);
    expect(res.json.error).toBe('FILE_TOO_LARGE');
  });

  it('CHECKSUM_MISMATCH on download when a byte of a shard was corrupted', async () => {
    const bytes = randomBytesOf(2_200_000, 35); // raw leaves + a dag-pb root, in one shard
    const up = await uploadA(alice, bytes);
    const at = await leafLocation(up.cid, 1);
    const restore = await corruptByte(at.key, at.offset + 100);
    const res = await alice.post('/api/storage/download', { fileId: up.id, ...(await proofBody()) });
    expect(res.status).toBe(422);
    expect(res.json.error).toBe('CHECKSUM_MISMATCH');
    await restore();
    const again = await alice.post('/api/storage/download', { fileId: up.id, ...(await proofBody()) });
    expect(again.status).toBe(200);
    expect(sha256(await bytesOf(again))).toBe(sha256(bytes));
  });

  it('the stream stops at the corrupted block: the blocks before it go out, none of its bytes do', async () => {
    const MiB = 1024 * 1024;
    const bytes = randomBytesOf(3 * MiB + 5000, 37); // leaves of 1 MiB: the second one is corrupted
    const up = await uploadA(alice, bytes);
    const at = await leafLocation(up.cid, 1);
    const restore = await corruptByte(at.key, at.offset + 7);
    try {
      const { getPin } = await import('#lib/storage/pins.ts');
      const { pinning } = await import('#lib/storage/pinning.ts');
      const { mapReadError } = await import('#lib/storage/pinning-s3.ts');
      const delivered: Uint8Array[] = [];
      let failure: unknown;
      try {
        for await (const chunk of (await pinning()).cat(up.cid, (await getPin(up.cid))!.ref)) delivered.push(chunk);
      } catch (e) {
        failure = mapReadError(e);
      }
      expect((failure as { code?: string })?.code).toBe('CHECKSUM_MISMATCH');
      const out = Buffer.concat(delivered);
      expect(out.length).toBe(MiB); // the first leaf only
      expect(sha256(out)).toBe(sha256(bytes.subarray(0, MiB)));
    } finally {
      await restore();
    }
  });

  it('a corrupted data object behind a large download: 422, never redirected to, and served again once restored', async () => {
    const bytes = randomBytesOf(5 * 1024 * 1024, 38); // above the 4 MiB redirect threshold
    const up = await uploadA(alice, bytes);
    const at = await leafLocation(up.cid, 3);
    const restore = await corruptByte(at.key, at.offset + at.length - 1);
    const res = await alice.get(`/api/storage/download/${up.cid}`, { headers: await proofHeaders() });
    expect(res.status).toBe(422);
    expect(res.json.error).toBe('CHECKSUM_MISMATCH');
    expect(await objectKeys(`files/${up.cid}`)).toEqual([]);
    await restore();
    const ok = await alice.get(`/api/storage/download/${up.cid}`, { headers: await proofHeaders() });
    expect(ok.status).toBe(302);
    expect(sha256(new Uint8Array(await (await fetch(ok.headers.get('location')!)).arrayBuffer()))).toBe(sha256(bytes));
  });

  it('the object writer makes only whole, checked objects visible (streamed PUT and multipart)', async () => {
    const { writeObject } = await import('#lib/storage/object-writer.ts');
    const bytes = randomBytesOf(9 * 1024 * 1024 + 3, 40);
    const pieces = async function* (failAt?: number) {
      for (let i = 0; i < bytes.length; i += 1 << 20) {
        if (failAt !== undefined && i >= failAt) throw new Error('source failed');
        yield bytes.subarray(i, i + (1 << 20));
      }
    };
    const refuse = () => {
      throw new Error('check failed');
    };
    for (const size of [bytes.length, undefined]) {
      const key = `test-writer/${size ?? 'multipart'}`;
      // A check that fails after the last chunk, a source that fails midway, a wrong declared size: nothing.
      await expect(writeObject(key, pieces(), { contentType: 'application/octet-stream', size, beforeComplete: refuse })).rejects.toThrow('check failed');
      expect(await objectKeys(key)).toEqual([]);
      await expect(writeObject(key, pieces(5 << 20), { contentType: 'application/octet-stream', size })).rejects.toThrow('source failed');
      expect(await objectKeys(key)).toEqual([]);
      if (size) {
        await expect(writeObject(key, pieces(), { contentType: 'application/octet-stream', size: size + 1 })).rejects.toThrow(/not the declared/);
        expect(await objectKeys(key)).toEqual([]);
      }
      const etag = await writeObject(key, pieces(), { contentType: 'application/octet-stream', size, beforeComplete: () => undefined });
      expect(etag).toMatch(/^"[0-9a-f-]+"$/);
      const stored = await (await s3.send(new GetObjectCommand({ Bucket: bucketName, Key: key }))).Body!.transformToByteArray();
      expect(sha256(stored)).toBe(sha256(bytes));
    }
  });

  it('files stored in the per-block layout (before shards) are read, shared and deleted as before', async () => {
    const { getPin } = await import('#lib/storage/pins.ts');
    const bytes = randomBytesOf(2_100_000, 39);
    const old = await inPerBlockLayout(() => uploadA(alice, bytes));
    const ref = (await getPin(old.cid))!.ref;
    expect(ref.shards).toBeUndefined();
    expect(ref.blocks!.length).toBe(4);
    expect(await objectKeys(`shards/${ref.owner}/`)).toEqual([]);
    // Read by today's code, with each block checked: a corrupted one is caught too.
    const dl = await alice.post('/api/storage/download', { fileId: old.id, ...(await proofBody()) });
    expect(sha256(await bytesOf(dl))).toBe(sha256(bytes));
    const leaf = ref.blocks!.find((b) => b.startsWith('bafkrei'))!;
    const restore = await corruptByte(`blocks/${leaf}`, 100);
    const bad = await alice.post('/api/storage/download', { fileId: old.id, ...(await proofBody()) });
    expect(bad.status).toBe(422);
    expect(bad.json.error).toBe('CHECKSUM_MISMATCH');
    await restore();
    // The same content uploaded now joins the old pin (its own shards discarded); deleting both removes the old blocks.
    const shardsBefore = await objectKeys('shards/');
    const again = await uploadB(bob, bytes);
    expect(again.cid).toBe(old.cid);
    expect(await objectKeys('shards/')).toEqual(shardsBefore);
    expect((await getPin(old.cid))!.ref).toEqual(ref);
    await alice.delete(`/api/storage/${old.id}`);
    await bob.delete(`/api/storage/files/${again.fileId}`);
    expect(await getPin(old.cid)).toBeUndefined();
    const keys = new Set(await objectKeys('blocks/'));
    expect(ref.blocks!.filter((b) => keys.has(`blocks/${b}`))).toEqual([]);
  });

  it('PINNING_ERROR when the pinning service fails', async () => {
    const { setPinning } = await import('#lib/storage/pinning.ts');
    const { PinataPinning } = await import('#lib/storage/pinning-pinata.ts');
    setPinning(
      new PinataPinning({
        PINATA_JWT: 'jwt',
        PINATA_GATEWAY: 'http://127.0.0.1:9',
        PINATA_API_URL: 'http://127.0.0.1:9/v3',
        PINATA_UPLOAD_URL: 'http://127.0.0.1:9/v3',
      }),
    );
    try {
      const bytes = randomBytesOf(1000, 36);
      const res = await upload(alice, { file: { bytes }, fields: await partsA(bytes) });
      expect(res.status).toBe(502);
      expect(res.json.error).toBe('PINNING_ERROR');
    } finally {
      setPinning(undefined);
    }
  });
});

describe('delete with a shared CID', () => {
  it('unpins only when the last record referencing the CID goes', async () => {
    const bytes = randomBytesOf(1_500_000, 41);
    const one = await uploadA(alice, bytes);
    const two = await uploadB(bob, bytes);
    expect(two.cid).toBe(one.cid);
    const { getPin } = await import('#lib/storage/pins.ts');
    expect((await getPin(one.cid))!.refs).toBe(2);
    const owner = (await getPin(one.cid))!.ref.owner!;
    expect(await objectKeys(`shards/${owner}/`)).not.toEqual([]);

    await alice.delete(`/api/storage/${one.id}`);
    expect((await getPin(one.cid))!.refs).toBe(1);
    const still = await bob.post('/api/storage/download', { fileId: two.fileId, ...(await proofBody()) });
    expect(sha256(await bytesOf(still))).toBe(sha256(bytes));

    await bob.delete(`/api/storage/files/${two.fileId}`);
    expect(await getPin(one.cid)).toBeUndefined();
    expect(await objectKeys(`shards/${owner}/`)).toEqual([]);
  });

  it('keeps a block another pinned file shares', async () => {
    const chunk = randomBytesOf(1024 * 1024, 42); // one full 1 MiB leaf, identical in both files
    const x = new Uint8Array([...chunk, 1, 2, 3]);
    const y = new Uint8Array([...chunk, 9, 9]);
    const ux = await uploadA(alice, x);
    const uy = await uploadA(alice, y);
    expect(ux.cid).not.toBe(uy.cid);
    await alice.delete(`/api/storage/${ux.id}`);
    const dl = await alice.get(`/api/storage/download/${uy.cid}`, { headers: await proofHeaders() });
    expect(dl.status).toBe(200);
    expect(sha256(await bytesOf(dl))).toBe(sha256(y));
  });
});

describe('share links', () => {
  it('expiresIn: up to 720 is hours, more is seconds; between one minute and 30 days', async () => {
    const up = await uploadA(alice, randomBytesOf(500, 51));
    const now = Date.now();
    const hours = await alice.post('/api/storage/share', { fileId: up.id, expiresIn: 48 });
    expect(hours.status).toBe(200);
    expect(hours.json).toEqual({
      success: true,
      shareToken: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      shareUrl: expect.any(String),
      expiresAt: expect.any(String),
    });
    expect(hours.json.shareUrl).toBe(`${rt.url}/share/${hours.json.shareToken}`);
    const { clock } = await import('#lib/clock.ts');
    const at = (r: { json: { expiresAt: string } }) => Date.parse(r.json.expiresAt) - clock.nowMs();
    expect(Math.abs(at(hours) - 48 * 3600_000)).toBeLessThan(10_000);
    const seconds = await alice.post('/api/storage/share', { fileId: up.id, expiresIn: 86400 });
    expect(Math.abs(at(seconds) - 86400_000)).toBeLessThan(10_000);
    expect((await alice.post('/api/storage/share', { fileId: up.id, expiresIn: 720 })).status).toBe(200);
    expect((await alice.post('/api/storage/share', { fileId: up.id, expiresIn: 721 })).status).toBe(200);
    for (const bad of [0, -1, 30 * 86400 + 1, 1.5]) {
      const res = await alice.post('/api/storage/share', { fileId: up.id, expiresIn: bad });
      expect(res.status, String(bad)).toBe(400);
    }
    void now;
  });

  it('resolves without a session, then 410 SHARE_EXPIRED past expiresAt; unknown 404; deleted file 404 CID_NOT_FOUND', async () => {
    const up = await uploadA(alice, randomBytesOf(700, 52), 'shared.bin');
    const share = (await alice.post('/api/storage/share', { fileId: up.id, expiresIn: 3600 })).json;
    const anon = rt.client();
    const ok = await anon.get(`/api/storage/shared/${share.shareToken}`);
    expect(ok.json).toEqual({ success: true, file: { cid: up.cid, filename: 'shared.bin', size: 700 }, expiresAt: share.expiresAt });

    advanceClock(3601_000);
    const expired = await anon.get(`/api/storage/shared/${share.shareToken}`);
    expect(expired.status).toBe(410);
    expect(expired.json.error).toBe('SHARE_EXPIRED');

    expect((await anon.get(`/api/storage/shared/${'A'.repeat(43)}`)).status).toBe(404);
    expect((await anon.get('/api/storage/shared/short')).status).toBe(404);

    const live = (await alice.post('/api/storage/share', { fileId: up.id, expiresIn: 1 })).json;
    await alice.delete(`/api/storage/${up.id}`);
    const gone = await anon.get(`/api/storage/shared/${live.shareToken}`);
    expect(gone.status).toBe(404);
    expect(gone.json.error).toBe('CID_NOT_FOUND');
  });
});

describe('presigned upload and redirected download (local S3)', () => {
  it('upload-url, PUT, finalise with uploadId; a download above 4 MiB answers 302 to a verified copy', async () => {
    const bytes = randomBytesOf(6 * 1024 * 1024 + 5, 61);
    const u = await alice.post('/api/storage/upload-url', { filename: 'big.enc', size: bytes.length });
    expect(u.status).toBe(200);
    expect(u.json).toMatchObject({ success: true, uploadId: expect.any(String), url: expect.stringContaining('/uploads/'), expiresAt: expect.any(String) });
    // The PUT is conditional and the condition signed: S3 takes it without the header as a bad signature.
    expect(u.json.headers).toEqual({ 'content-type': 'application/octet-stream', 'if-none-match': '*' });
    expect(new URL(u.json.url).searchParams.get('X-Amz-SignedHeaders')?.split(';')).toEqual(expect.arrayContaining(['content-length', 'if-none-match']));
    const put = await fetch(u.json.url, { method: 'PUT', body: bytes, headers: u.json.headers });
    expect(put.status).toBe(200);
    // Written once: the URL cannot replace the staged bytes.
    expect((await fetch(u.json.url, { method: 'PUT', body: randomBytesOf(bytes.length, 60), headers: u.json.headers })).status).toBe(412);
    // The data object is made by a server-side copy of the staged object: none of its bytes go back through the API.
    const { s3: apiS3 } = await import('#lib/storage/s3.ts');
    const dataWrites: string[] = [];
    apiS3.middlewareStack.add(
      (next) => async (args) => {
        const input = args.input as { Key?: string; CopySourceIfMatch?: string };
        if (input.Key?.endsWith('/data')) dataWrites.push(input.CopySourceIfMatch ? 'copy if-match' : 'write');
        return next(args);
      },
      { step: 'initialize', name: 'dataObjectWrites' },
    );
    let fin;
    try {
      fin = await alice.request('POST', '/api/storage/upload', { body: form({ fields: { ...(await partsA(bytes)), uploadId: u.json.uploadId } }) });
    } finally {
      apiS3.middlewareStack.remove('dataObjectWrites');
    }
    expect(fin.status, JSON.stringify(fin.json)).toBe(201);
    expect(dataWrites).toEqual(['copy if-match']);
    expect(fin.json).toMatchObject({ filename: 'big.enc', size: bytes.length });
    expect(await objectKeys(`uploads/${u.json.uploadId}`)).toEqual([]);
    const again = await alice.request('POST', '/api/storage/upload', { body: form({ fields: { ...(await partsA(bytes)), uploadId: u.json.uploadId } }) });
    expect(again.status).toBe(404);

    // The bytes the import checked are the upload's data object, its ETag recorded as written: the
    // first download hashes nothing, and no copy is made.
    const { getPin } = await import('#lib/storage/pins.ts');
    const pin = (await getPin(fin.json.cid))!;
    expect(pin.ref.copy).toEqual({ key: `shards/${pin.ref.owner}/data`, etag: expect.stringMatching(/^"[0-9a-f]{32}"$/) });
    expect(pin.assembled).toBeUndefined();
    expect(await objectKeys(`files/${fin.json.cid}`)).toEqual([]);
    const dl = await alice.get(`/api/storage/download/${fin.json.cid}`, { headers: await proofHeaders() });
    expect(dl.status).toBe(302);
    expect(new URL(dl.headers.get('location')!).pathname).toBe(`/${bucketName}/${pin.ref.copy!.key}`);
    expect(await getPin(fin.json.cid)).toEqual(pin);
    expect(dl.headers.get('x-checksum-sha256')).toBe(`sha256:${sha256(bytes)}`);
    const got = await fetch(dl.headers.get('location')!);
    expect(got.status).toBe(200);
    expect(sha256(new Uint8Array(await got.arrayBuffer()))).toBe(sha256(bytes));

    // The copy behind the redirect is checked too: corrupt it and the redirect is refused.
    await s3.send(new PutObjectCommand({ Bucket: bucketName, Key: pin.ref.copy!.key, Body: randomBytesOf(bytes.length, 62) }));
    const bad = await alice.post('/api/storage/download', { fileId: fin.json.id, ...(await proofBody()) });
    expect(bad.status).toBe(422);
    expect(bad.json.error).toBe('CHECKSUM_MISMATCH');
  });

  it('the staged object cannot be written again during finalisation: the download copy is the bytes the import checked', async () => {
    const bytes = randomBytesOf(5 * 1024 * 1024 + 3, 65);
    const other = randomBytesOf(bytes.length, 66);
    const u = await alice.post('/api/storage/upload-url', { size: bytes.length });
    expect((await fetch(u.json.url, { method: 'PUT', body: bytes, headers: u.json.headers })).status).toBe(200);
    // The presigned URL is still valid while the import runs: the client tries to write other bytes through it then.
    const { s3: apiS3 } = await import('#lib/storage/s3.ts');
    let rewrite: number | undefined;
    apiS3.middlewareStack.add(
      (next) => async (args) => {
        const out = await next(args);
        const input = args.input as { Key?: string };
        if (rewrite === undefined && input.Key === `uploads/${u.json.uploadId}` && (args.request as { method?: string }).method === 'GET') {
          rewrite = (await fetch(u.json.url, { method: 'PUT', body: other, headers: u.json.headers })).status;
        }
        return out;
      },
      { step: 'finalizeRequest', name: 'rewriteStagingDuringImport' },
    );
    try {
      const fin = await alice.request('POST', '/api/storage/upload', { body: form({ fields: { ...(await partsA(bytes)), uploadId: u.json.uploadId } }) });
      expect(fin.status, JSON.stringify(fin.json)).toBe(201);
      expect(rewrite).toBe(412);
      const dl = await alice.get(`/api/storage/download/${fin.json.cid}`, { headers: await proofHeaders() });
      expect(dl.status).toBe(302);
      const got = await fetch(dl.headers.get('location')!);
      expect(sha256(new Uint8Array(await got.arrayBuffer()))).toBe(sha256(bytes));
    } finally {
      apiS3.middlewareStack.remove('rewriteStagingDuringImport');
    }
  });

  it('a failed finalisation (checksum) removes the staged object and stores nothing', async () => {
    const bytes = randomBytesOf(200_000, 63);
    const u = await alice.post('/api/storage/upload-url', { size: bytes.length });
    await fetch(u.json.url, { method: 'PUT', body: bytes, headers: u.json.headers });
    const blocksBefore = await storedObjects();
    const fin = await alice.request('POST', '/api/storage/upload', {
      body: form({ fields: { ...(await partsA(bytes)), checksum: sha256(new Uint8Array(3)), uploadId: u.json.uploadId } }),
    });
    expect(fin.status).toBe(422);
    expect(await objectKeys(`uploads/${u.json.uploadId}`)).toEqual([]);
    expect(await storedObjects()).toEqual(blocksBefore);
  });

  it('a large direct upload is served by redirect to its data object, trusted by the ETag it was written with', async () => {
    const bytes = randomBytesOf(9 * 1024 * 1024, 64); // two parts: S3's multipart ETag
    const up = await uploadB(alice, bytes);
    const { getPin } = await import('#lib/storage/pins.ts');
    const pin = (await getPin(up.cid))!;
    expect(pin.ref.copy).toEqual({ key: `shards/${pin.ref.owner}/data`, etag: expect.stringMatching(/^"[0-9a-f]{32}-2"$/) });
    const dl = await alice.post('/api/storage/download', { fileId: up.fileId, ...(await proofBody()) });
    expect(dl.status).toBe(302);
    const got = await fetch(dl.headers.get('location')!);
    expect(got.headers.get('content-disposition')).toMatch(/^attachment; filename=/);
    expect(sha256(new Uint8Array(await got.arrayBuffer()))).toBe(sha256(bytes));
    expect(await objectKeys(`files/${up.cid}`)).toEqual([]);
    // Changed behind our back (another ETag): hashed again, refused when wrong, served (and its new ETag recorded) when right.
    const restore = await corruptByte(pin.ref.copy!.key, 12345);
    const bad = await alice.post('/api/storage/download', { fileId: up.fileId, ...(await proofBody()) });
    expect(bad.status).toBe(422);
    expect(bad.json.error).toBe('CHECKSUM_MISMATCH');
    await restore();
    expect((await alice.post('/api/storage/download', { fileId: up.fileId, ...(await proofBody()) })).status).toBe(302);
    expect((await getPin(up.cid))!.assembledEtag).toMatch(/^"[0-9a-f]{32}"$/);
    await alice.delete(`/api/storage/files/${up.fileId}`);
    expect(await objectKeys(`shards/${pin.ref.owner}/`)).toEqual([]);
  });

  it('S3 failing while a large download checks its copy is 502 PINNING_ERROR, not a missing file', async () => {
    const bytes = randomBytesOf(5 * 1024 * 1024 + 1, 68);
    const up = await uploadB(alice, bytes);
    const { s3: apiS3 } = await import('#lib/storage/s3.ts');
    apiS3.middlewareStack.add(
      (next) => async (args) => {
        if ((args.request as { method?: string }).method === 'HEAD')
          throw Object.assign(new Error('service unavailable'), { name: 'ServiceUnavailable', $metadata: { httpStatusCode: 503 } });
        return next(args);
      },
      { step: 'finalizeRequest', name: 'headFails' },
    );
    try {
      const res = await alice.post('/api/storage/download', { fileId: up.fileId, ...(await proofBody()) });
      expect(res.status).toBe(502);
      expect(res.json.error).toBe('PINNING_ERROR');
    } finally {
      apiS3.middlewareStack.remove('headFails');
    }
    expect((await alice.post('/api/storage/download', { fileId: up.fileId, ...(await proofBody()) })).status).toBe(302);
  });

  it('a large file of the per-block layout (no data object) is served by a copy assembled from checked blocks on first download', async () => {
    const bytes = randomBytesOf(5 * 1024 * 1024, 67);
    const up = await inPerBlockLayout(() => uploadB(alice, bytes));
    const dl = await alice.post('/api/storage/download', { fileId: up.fileId, ...(await proofBody()) });
    expect(dl.status).toBe(302);
    const got = await fetch(dl.headers.get('location')!);
    expect(sha256(new Uint8Array(await got.arrayBuffer()))).toBe(sha256(bytes));
    // The copy's ETag at its check is on the pin: an unchanged copy is trusted by it, a changed one is hashed again.
    const { getPin } = await import('#lib/storage/pins.ts');
    const pin = (await getPin(up.cid))!;
    expect(pin).toMatchObject({ assembled: true, assembledEtag: expect.stringMatching(/^"[0-9a-f]{32}"$/) });
    expect((await alice.post('/api/storage/download', { fileId: up.fileId, ...(await proofBody()) })).status).toBe(302);
    const restore = await corruptByte(`files/${up.cid}`, 12345);
    const bad = await alice.post('/api/storage/download', { fileId: up.fileId, ...(await proofBody()) });
    expect(bad.status).toBe(422);
    expect(bad.json.error).toBe('CHECKSUM_MISMATCH');
    await restore();
    expect((await alice.post('/api/storage/download', { fileId: up.fileId, ...(await proofBody()) })).status).toBe(302);
    await alice.delete(`/api/storage/files/${up.fileId}`);
    expect(await objectKeys(`files/${up.cid}`)).toEqual([]);
  });
});

describe('POST /api/storage/verify', () => {
  it('answers valid for a proof of the commitment, false otherwise, 400 when malformed', async () => {
    const p = await proofOf('pw-alpha');
    const ok = await alice.post('/api/storage/verify', { proof: p.proof, publicSignals: p.publicSignals, commitment: p.commitment });
    expect(ok.json).toEqual({ success: true, valid: true });
    const other = await proofOf('wrong-password');
    expect((await alice.post('/api/storage/verify', { proof: p.proof, publicSignals: p.publicSignals, commitment: other.commitment })).json.valid).toBe(false);
    expect((await alice.post('/api/storage/verify', { proof: other.proof, publicSignals: p.publicSignals, commitment: p.commitment })).json.valid).toBe(false);
    expect((await alice.post('/api/storage/verify', { proof: {}, publicSignals: [], commitment: '1' })).status).toBe(400);
  });
});
