import { createServer, type Server } from 'node:http';
import { createHash, randomUUID } from 'node:crypto';
import { CarBlockIterator } from '@ipld/car/iterator';
import { MemoryBlockstore } from 'blockstore-core/memory';
import { CID } from 'multiformats/cid';
import { cidOf } from '#lib/storage/cid.ts';

/**
 * A loopback Pinata, for the replica target's tests and the asset mode's rehearsal stage
 * (cdk/asset-mode.ts), doing for real what the target (lib/storage/replica-target-pinata.ts) relies on:
 * - `POST /v3/files` (multipart `file`, `network`, `name`, `car`): with `car=true` the CAR is
 *   parsed (@ipld/car), every block checked against its CID and kept in a real blockstore, and
 *   the file's `cid` is the CAR's root; without it (or with `ignoreCar`) the upload is chunked as
 *   plain bytes, so the `cid` is that of the CAR file itself — what Pinata would do.
 * - `GET /v3/files/public?cid=&limit=&pageToken=` and `DELETE /v3/files/public/:id`; deleting
 *   the last file of a DAG drops the blocks no other file holds.
 * - `GET /ipfs/:cid` with `Accept: application/vnd.ipld.raw`: the block's bytes (trustless gateway).
 * Every `/v3/` call must carry `Authorization: Bearer <jwt>` (401 otherwise); the gateway needs none.
 * `failNext(...statuses)` answers the next `/v3/` calls with those statuses (429 with Retry-After: 0).
 */
export interface PinataFile {
  id: string;
  cid: string;
  name: string;
  size: number;
  network: string;
  created_at: string;
  blocks: string[];
}

export class LocalPinata {
  jwt: string;
  /** Treat uploads as plain bytes even with `car=true` (a root that is not ours). */
  ignoreCar = false;
  readonly blocks = new MemoryBlockstore();
  readonly files = new Map<string, PinataFile>();
  readonly requests: { method: string; path: string; auth?: string; fields?: Record<string, string> }[] = [];
  private failures: number[] = [];
  private server?: Server;
  base = '';

  constructor(jwt: string) {
    this.jwt = jwt;
  }

  failNext(...statuses: number[]): void {
    this.failures.push(...statuses);
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      this.handle(req.method ?? 'GET', req.url ?? '/', req.headers, req).then(
        ({ status, body, headers }) => {
          res.writeHead(status, headers ?? { 'content-type': 'application/json' });
          res.end(body);
        },
        (e: unknown) => {
          res.writeHead(500, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ error: String(e) }));
        },
      );
    });
    await new Promise<void>((ok) => this.server!.listen(0, '127.0.0.1', ok));
    this.base = `http://127.0.0.1:${(this.server.address() as { port: number }).port}`;
    return this;
  }

  async stop(): Promise<void> {
    if (!this.server) return;
    this.server.closeAllConnections();
    await new Promise<void>((ok) => this.server!.close(() => ok()));
    this.server = undefined;
  }

  /** The replica-target config pointing at this fake (the JWT from env var `jwtEnv`). */
  targetConfig(name: string, jwtEnv: string) {
    return { type: 'pinata' as const, name, gateway: this.base, apiUrl: `${this.base}/v3`, uploadUrl: `${this.base}/v3`, jwt: { env: jwtEnv } };
  }

  filesOf(cid: string): PinataFile[] {
    return [...this.files.values()].filter((f) => f.cid === cid);
  }

  async hasBlock(cid: string): Promise<boolean> {
    return await this.blocks.has(CID.parse(cid));
  }

  async deleteBlock(cid: string): Promise<void> {
    await this.blocks.delete(CID.parse(cid));
  }

  async corruptBlock(cid: string): Promise<void> {
    await this.blocks.put(CID.parse(cid), new TextEncoder().encode('not the block you stored'));
  }

  private async handle(method: string, rawUrl: string, headers: NodeJS.Dict<string | string[]>, body: AsyncIterable<unknown>) {
    const chunks: Buffer[] = [];
    for await (const c of body) chunks.push(c as Buffer);
    const url = new URL(rawUrl, 'http://x');
    const auth = typeof headers.authorization === 'string' ? headers.authorization : undefined;
    const entry: (typeof this.requests)[number] = { method, path: url.pathname, auth };
    this.requests.push(entry);
    const json = (status: number, data: unknown, extra: Record<string, string> = {}) => ({
      status,
      body: JSON.stringify(data),
      headers: { 'content-type': 'application/json', ...extra },
    });

    if (url.pathname.startsWith('/v3/')) {
      const fail = this.failures.shift();
      if (fail) return json(fail, { error: { reason: 'FAULT', details: `injected ${fail}` } }, fail === 429 ? { 'retry-after': '0' } : {});
      if (auth !== `Bearer ${this.jwt}`) return json(401, { error: { reason: 'INVALID_CREDENTIALS', details: 'Invalid/expired credentials' } });
    }

    if (method === 'POST' && url.pathname === '/v3/files') {
      const form = await new Response(Buffer.concat(chunks), { headers: { 'content-type': String(headers['content-type']) } }).formData();
      const file = form.get('file');
      if (!(file instanceof File)) return json(400, { error: { reason: 'NO_FILE' } });
      const fields: Record<string, string> = {};
      form.forEach((v, k) => {
        if (typeof v === 'string') fields[k] = v;
      });
      entry.fields = fields;
      const bytes = new Uint8Array(await file.arrayBuffer());
      let cid: string;
      const blocks: string[] = [];
      if (form.get('car') === 'true' && !this.ignoreCar) {
        const car = await CarBlockIterator.fromBytes(bytes);
        const roots = await car.getRoots();
        if (roots.length !== 1) return json(400, { error: { reason: 'CAR_ROOTS' } });
        for await (const { cid: c, bytes: b } of car) {
          if (c.multihash.code !== 0x12 || !createHash('sha256').update(b).digest().equals(c.multihash.digest))
            return json(400, { error: { reason: 'BAD_BLOCK', details: c.toString() } });
          await this.blocks.put(c, b);
          blocks.push(c.toString());
        }
        if (!blocks.includes(roots[0]!.toString())) return json(400, { error: { reason: 'ROOT_NOT_IN_CAR' } });
        cid = roots[0]!.toString();
      } else {
        cid = await cidOf(bytes);
      }
      const f: PinataFile = {
        id: randomUUID(),
        cid,
        name: String(form.get('name') ?? file.name),
        size: bytes.length,
        network: String(form.get('network') ?? 'private'),
        created_at: new Date().toISOString(),
        blocks,
      };
      this.files.set(f.id, f);
      const { blocks: _b, ...data } = f;
      return json(200, { data: { ...data, number_of_files: 1, mime_type: file.type, group_id: null, keyvalues: {}, vectorized: false } });
    }

    if (method === 'GET' && url.pathname === '/v3/files/public') {
      const cid = url.searchParams.get('cid');
      const limit = Number(url.searchParams.get('limit') ?? 10);
      const from = Number(url.searchParams.get('pageToken') ?? 0);
      const all = [...this.files.values()].filter((f) => f.network === 'public' && (!cid || f.cid === cid));
      const page = all
        .slice(from, from + limit)
        .map(({ blocks: _b, ...f }) => ({ ...f, number_of_files: 1, mime_type: 'application/vnd.ipld.car', group_id: null, keyvalues: {} }));
      return json(200, { data: { files: page, next_page_token: from + limit < all.length ? String(from + limit) : '' } });
    }

    const del = /^\/v3\/files\/public\/([^/]+)$/.exec(url.pathname);
    if (method === 'DELETE' && del) {
      const f = this.files.get(decodeURIComponent(del[1]!));
      if (!f) return json(404, { error: { reason: 'NOT_FOUND' } });
      this.files.delete(f.id);
      const kept = new Set([...this.files.values()].flatMap((x) => x.blocks));
      for (const b of f.blocks) if (!kept.has(b)) await this.blocks.delete(CID.parse(b));
      return json(200, { data: null });
    }

    const gw = /^\/ipfs\/([^/?]+)$/.exec(url.pathname);
    if (method === 'GET' && gw) {
      if (!String(headers.accept ?? '').includes('application/vnd.ipld.raw')) return json(406, { error: 'this fake answers raw blocks only' });
      let cid: CID;
      try {
        cid = CID.parse(gw[1]!);
      } catch {
        return json(400, { error: 'not a CID' });
      }
      if (!(await this.blocks.has(cid))) return json(404, { error: 'not found' });
      const parts: Uint8Array[] = [];
      for await (const p of this.blocks.get(cid)) parts.push(p);
      return { status: 200, body: Buffer.concat(parts), headers: { 'content-type': 'application/vnd.ipld.raw' } };
    }
    return json(404, { error: 'no route' });
  }
}

export const startLocalPinata = (jwt: string) => new LocalPinata(jwt).start();
