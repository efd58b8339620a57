import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PinataPinning } from '#lib/storage/pinning-pinata.ts';

/**
 * A loopback stand-in for the three Pinata calls the adapter makes, over real HTTP with the real
 * SDK: POST /v3/files (multipart upload), DELETE /v3/files/public/:id, GET /ipfs/:cid (gateway).
 */
const files = new Map<string, { id: string; cid: string; bytes: Buffer }>();
const seen: { method: string; path: string; auth?: string }[] = [];
let failNext: number | undefined;
let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    const url = new URL(req.url!, 'http://x');
    seen.push({ method: req.method!, path: url.pathname, auth: req.headers.authorization });
    const json = (status: number, data: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(data));
    };
    if (failNext) {
      const s = failNext;
      failNext = undefined;
      return json(s, { error: 'boom' });
    }
    if (req.method === 'POST' && url.pathname === '/v3/files') {
      const form = await new Response(body, { headers: { 'content-type': req.headers['content-type']! } }).formData();
      const file = form.get('file') as File;
      const bytes = Buffer.from(await file.arrayBuffer());
      const id = `f${files.size + 1}`;
      const cid = `bafkpinata${id}`; // Pinata's own CID need not be ours: the adapter keeps both
      files.set(id, { id, cid, bytes });
      return json(200, { data: { id, cid, name: form.get('name'), size: bytes.length, network: form.get('network') } });
    }
    const del = /^\/v3\/files\/public\/(.+)$/.exec(url.pathname);
    if (req.method === 'DELETE' && del) {
      files.delete(del[1]!);
      return json(200, { data: null });
    }
    const gw = /^\/ipfs\/(.+)$/.exec(url.pathname);
    if (req.method === 'GET' && gw) {
      const f = [...files.values()].find((x) => x.cid === gw[1]);
      if (!f) return json(404, { error: 'not found' });
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      return res.end(f.bytes);
    }
    json(404, { error: 'no route' });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
afterAll(() => new Promise<void>((ok) => server.close(() => ok())));

const adapter = () => new PinataPinning({ PINATA_JWT: 'test-jwt', PINATA_GATEWAY: base, PINATA_API_URL: `${base}/v3`, PINATA_UPLOAD_URL: `${base}/v3` });
async function* source(b: Buffer) {
  for (let i = 0; i < b.length; i += 1000) yield b.subarray(i, i + 1000);
}
const collect = async (it: AsyncIterable<Uint8Array>) => {
  const parts: Uint8Array[] = [];
  for await (const p of it) parts.push(p);
  return Buffer.concat(parts);
};

describe('Pinata adapter (real SDK, loopback fake of its API)', () => {
  it('uploads, reads back through the gateway, unpins', async () => {
    const bytes = Buffer.from('hello world');
    const a = adapter();
    const added = await a.add(source(bytes), { name: 'greeting.bin', uploadId: 'u1' });
    expect(added.cid).toBe('bafkreifzjut3te2nhyekklss27nh3k72ysco7y32koao5eei66wof36n5e'); // ours, not Pinata's
    expect(added.ref).toEqual({ pinataId: 'f1', pinataCid: 'bafkpinataf1' });
    expect(seen.at(-1)).toMatchObject({ method: 'POST', path: '/v3/files', auth: 'Bearer test-jwt' });
    expect((await collect(a.cat(added.cid, added.ref))).equals(bytes)).toBe(true);
    await a.unpin(added.cid, added.ref);
    expect(files.has('f1')).toBe(false);
    await expect(collect(a.cat(added.cid, added.ref))).rejects.toMatchObject({ code: 'CID_NOT_FOUND', status: 404 });
  });

  it('a duplicate of pinned content is removed from Pinata; the pinned one stays', async () => {
    const a = adapter();
    const first = await a.add(source(Buffer.from('dup')), { name: 'a', uploadId: 'u2' });
    const second = await a.add(source(Buffer.from('dup')), { name: 'b', uploadId: 'u3' });
    await a.discard(second, first.ref);
    expect(files.has(second.ref.pinataId!)).toBe(false);
    expect(files.has(first.ref.pinataId!)).toBe(true);
  });

  it('service failures are 502 PINNING_ERROR', async () => {
    failNext = 500;
    await expect(adapter().add(source(Buffer.from('x')), { name: 'x', uploadId: 'u4' })).rejects.toMatchObject({ code: 'PINNING_ERROR', status: 502 });
    failNext = 401;
    await expect(adapter().unpin('c', { pinataId: 'f1' })).rejects.toMatchObject({ code: 'PINNING_ERROR', status: 502 });
    failNext = 503;
    await expect(collect(adapter().cat('c', { pinataCid: 'c' }))).rejects.toMatchObject({ code: 'PINNING_ERROR', status: 502 });
    const dead = new PinataPinning({
      PINATA_JWT: 'j',
      PINATA_GATEWAY: 'http://127.0.0.1:9',
      PINATA_API_URL: 'http://127.0.0.1:9/v3',
      PINATA_UPLOAD_URL: 'http://127.0.0.1:9/v3',
    });
    await expect(dead.add(source(Buffer.from('x')), { name: 'x', uploadId: 'u5' })).rejects.toMatchObject({ code: 'PINNING_ERROR' });
  });
});
