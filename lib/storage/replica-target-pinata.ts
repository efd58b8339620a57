import { openAsBlob, createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { CID } from 'multiformats/cid';
import { logger } from '#lib/log.ts';
import { BlockCorruptError, BlockNotFoundError, checkBlock } from './blockstore.ts';
import { carHeader, carSectionHead } from './car.ts';
import type { PinataTargetConfig } from './config.ts';
import { forgetSecret, resolveSecret } from './replica-credentials.ts';
import { TargetFailure, type BlockCheckResult, type CopyJournal, type CopySource, type ReplicaTarget } from './replica-target-port.ts';

/**
 * A Pinata account as a storage target of replicated pins. A replica is one Pinata file: the
 * whole DAG of the pinned file uploaded as a CAR (root = the file's CID), which Pinata imports
 * block for block, so the CIDs are ours. Blocks are read back one at a time from the account's
 * gateway as a trustless gateway (raw block, checked against its CID here). No per-block writes
 * exist, so a copy or a repair is one upload of the whole CAR, and a copy resumes only as a whole.
 *
 * API shapes followed (Pinata v3; checked against the `pinata` SDK 2.5.6 that pinning-pinata.ts uses):
 * - docs.pinata.cloud/api-reference/endpoint/upload-a-file — `POST https://uploads.pinata.cloud/v3/files`,
 *   multipart `file`, `network` (`public` | `private`, default private), `name`; the SDK's
 *   `.car()` adds the form field `car=true` (the file is a CAR to import, not bytes to chunk).
 *   Answer `{data: {id, cid, name, size, network, …}}`.
 * - docs.pinata.cloud/files/listing-files (and the SDK's listFiles, whose query names these are) —
 *   `GET https://api.pinata.cloud/v3/files/public?cid=…&limit=…&pageToken=…` →
 *   `{data: {files: [{id, cid, …}], next_page_token}}`.
 * - docs.pinata.cloud/api-reference/endpoint/delete-file-by-id —
 *   `DELETE https://api.pinata.cloud/v3/files/{network}/{id}`, here network `public`.
 * - docs.pinata.cloud/gateways — public files at `https://<gateway>/ipfs/<cid>`; with
 *   `Accept: application/vnd.ipld.raw` (IPFS trustless gateway spec) the block's own bytes.
 * Every API call carries `Authorization: Bearer <JWT>`; the gateway gets no credentials.
 * Pinata's SDK switches to resumable (TUS) uploads above 90 MiB; this target sends one multipart
 * POST whatever the size (docs/storage.md: the limit this implies).
 */
export interface RetryPolicy {
  /** Tries of one request, the first included. */
  attempts: number;
  baseMs: number;
  maxMs: number;
}

const DEFAULT_RETRY: RetryPolicy = { attempts: 4, baseMs: 500, maxMs: 8_000 };
const CAR_TYPE = 'application/vnd.ipld.car';
const RAW_TYPE = 'application/vnd.ipld.raw';
/** Our blocks are at most 1 MiB; a gateway answering more is not sending a block. */
const MAX_BLOCK_BYTES = 4 * 1024 * 1024;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The same content address, whatever the CID version or base Pinata writes it in. */
function sameCid(a: string, b: string): boolean {
  try {
    return CID.parse(a).toV1().equals(CID.parse(b).toV1());
  } catch {
    return false;
  }
}

async function readCapped(res: Response, max: number): Promise<Uint8Array | undefined> {
  const parts: Uint8Array[] = [];
  let total = 0;
  if (!res.body) return new Uint8Array();
  const reader = res.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.length;
    if (total > max) {
      await reader.cancel();
      return undefined;
    }
    parts.push(value);
  }
  return Buffer.concat(parts);
}

interface Call {
  /** What the request does, for reasons and logs (`upload`, `list`, `delete`, `read`). */
  what: string;
  url: string;
  init: () => RequestInit;
  /** API calls carry the JWT; gateway reads do not. */
  auth: boolean;
  timeoutMs: number;
  /** Statuses the caller handles itself (404 on a read or a delete). */
  pass?: readonly number[];
}

export class PinataReplicaTarget implements ReplicaTarget {
  readonly kind = 'pinata' as const;
  private readonly gateway: string;
  private readonly apiUrl: string;
  private readonly uploadUrl: string;

  constructor(
    readonly cfg: PinataTargetConfig,
    private readonly retry: RetryPolicy = DEFAULT_RETRY,
  ) {
    const trim = (u: string) => u.replace(/\/+$/, '');
    this.gateway = trim(cfg.gateway);
    this.apiUrl = trim(cfg.apiUrl);
    this.uploadUrl = trim(cfg.uploadUrl);
  }

  get name(): string {
    return this.cfg.name;
  }

  private async jwt(): Promise<string> {
    try {
      return await resolveSecret(this.cfg.jwt);
    } catch (e) {
      throw new TargetFailure(this.name, 'failed', `pinata credentials unavailable (${(e as Error).message})`);
    }
  }

  /**
   * One exchange with Pinata. 401/403: the credentials were refused — a failure at once (the same
   * JWT would be refused again; the cached one is dropped so a rotated secret is read next time).
   * 429, 5xx and no answer: retried with exponential backoff (Retry-After respected, bounded by
   * `maxMs`) up to `attempts` tries, then the target is unreachable. Other 4xx: a failure.
   */
  private async send(call: Call): Promise<Response> {
    let last = '';
    for (let attempt = 1; ; attempt++) {
      let wait = Math.min(this.retry.maxMs, this.retry.baseMs * 2 ** (attempt - 1)) * (0.5 + Math.random() / 2);
      let res: Response | undefined;
      try {
        const init = call.init();
        const headers = new Headers(init.headers);
        if (call.auth) headers.set('authorization', `Bearer ${await this.jwt()}`);
        res = await fetch(call.url, { ...init, headers, signal: AbortSignal.timeout(call.timeoutMs) });
      } catch (e) {
        if (e instanceof TargetFailure) throw e;
        last = `no answer (${(e as Error).name})`;
      }
      if (res) {
        if (res.ok || call.pass?.includes(res.status)) return res;
        await res.body?.cancel();
        if (res.status === 401 || res.status === 403) {
          if (!call.auth) throw new TargetFailure(this.name, 'failed', `pinata gateway refused the ${call.what} (HTTP ${res.status})`);
          forgetSecret(this.cfg.jwt);
          throw new TargetFailure(this.name, 'failed', `pinata credentials refused (HTTP ${res.status} on ${call.what})`);
        }
        if (res.status !== 429 && res.status < 500) throw new TargetFailure(this.name, 'failed', `pinata refused the ${call.what} (HTTP ${res.status})`);
        last = `HTTP ${res.status}`;
        const after = Number(res.headers.get('retry-after'));
        if (Number.isFinite(after) && after > 0) wait = Math.max(wait, Math.min(this.retry.maxMs, after * 1000));
      }
      if (attempt >= this.retry.attempts) {
        throw new TargetFailure(this.name, 'unreachable', `pinata ${call.what}: ${last} after ${attempt} attempts`);
      }
      logger.warn('pinata replica target: retrying', { target: this.name, what: call.what, attempt, answer: last });
      await sleep(wait);
    }
  }

  async copy(root: string, src: CopySource, journal: CopyJournal): Promise<void> {
    if ((await journal.done()) >= src.blocks.length) return; // uploaded before (a job delivered again)
    await this.upload(root, src);
    await journal.record(src.blocks.length);
  }

  /**
   * The CAR goes to a temporary file first (blocks read one at a time from `src`), then up as a
   * disk-backed Blob: a 100 MB file is never held in memory, and a retried POST re-reads the file
   * instead of the blocks.
   */
  private async upload(root: string, src: CopySource): Promise<void> {
    const dir = await mkdtemp(join(tmpdir(), 'shroud-replica-car-'));
    try {
      const path = join(dir, `${root}.car`);
      async function* sections() {
        yield carHeader(CID.parse(root));
        for (const block of src.blocks) {
          const bytes = await src.read(block);
          yield carSectionHead(CID.parse(block), bytes.length);
          yield bytes;
        }
      }
      await pipeline(Readable.from(sections()), createWriteStream(path));
      const car = await openAsBlob(path, { type: CAR_TYPE });
      const res = await this.send({
        what: 'upload',
        url: `${this.uploadUrl}/files`,
        auth: true,
        timeoutMs: 15 * 60_000,
        init: () => {
          const form = new FormData();
          form.append('file', new File([car], `${root}.car`, { type: CAR_TYPE }));
          form.append('network', 'public');
          form.append('car', 'true');
          form.append('name', `shroud-replica-${root}`);
          return { method: 'POST', body: form };
        },
      });
      const data = ((await res.json().catch(() => undefined)) as { data?: { id?: unknown; cid?: unknown } } | undefined)?.data;
      if (typeof data?.id !== 'string' || typeof data.cid !== 'string')
        throw new TargetFailure(this.name, 'failed', 'pinata upload answered no file id or CID');
      if (!sameCid(data.cid, root)) {
        // Pinata did not import our DAG (it chunked the CAR as a file, or lost blocks): not a replica.
        await this.deleteFile(data.id).catch(() => undefined);
        throw new TargetFailure(this.name, 'failed', `pinata stored root ${data.cid.slice(0, 80)}, not ${root}`);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  /** The block from the gateway, checked against its CID; undefined when the gateway has none. */
  private async fetchBlock(block: CID): Promise<Uint8Array | undefined> {
    const res = await this.send({
      what: 'read',
      url: `${this.gateway}/ipfs/${block.toString()}`,
      auth: false,
      timeoutMs: 30_000,
      pass: [404, 410],
      init: () => ({ headers: { accept: RAW_TYPE } }),
    });
    if (res.status === 404 || res.status === 410) {
      await res.body?.cancel();
      return undefined;
    }
    const bytes = await readCapped(res, MAX_BLOCK_BYTES);
    if (!bytes) throw new BlockCorruptError(block.toString());
    return checkBlock(block, bytes);
  }

  async check(_root: string, block: string): Promise<BlockCheckResult> {
    try {
      const bytes = await this.fetchBlock(CID.parse(block));
      return bytes ? { state: 'ok', bytes } : { state: 'missing' };
    } catch (e) {
      if (e instanceof BlockCorruptError) return { state: 'corrupt' };
      return { state: 'unreachable', reason: e instanceof TargetFailure ? e.message : `${this.name}: ${(e as Error).name} reading a block` };
    }
  }

  async readBlock(_root: string, block: CID): Promise<Uint8Array> {
    const bytes = await this.fetchBlock(block);
    if (!bytes) throw new BlockNotFoundError(block.toString());
    return bytes;
  }

  /** No single block can be put back: the whole CAR is uploaded again. */
  async repair(root: string, _damaged: readonly string[], src: CopySource): Promise<void> {
    await this.upload(root, src);
  }

  /** Every Pinata file whose CID is `root` (an upload and its repairs), deleted. */
  async release(root: string): Promise<void> {
    for (const id of await this.filesOf(root)) await this.deleteFile(id);
  }

  private async filesOf(root: string): Promise<string[]> {
    const ids: string[] = [];
    let token: string | undefined;
    for (let page = 0; page < 100; page++) {
      const q = new URLSearchParams({ cid: root, limit: '100', ...(token ? { pageToken: token } : {}) });
      const res = await this.send({ what: 'list', url: `${this.apiUrl}/files/public?${q}`, auth: true, timeoutMs: 30_000, init: () => ({ method: 'GET' }) });
      const data = (
        (await res.json().catch(() => undefined)) as { data?: { files?: { id?: unknown; cid?: unknown }[]; next_page_token?: unknown } } | undefined
      )?.data;
      const files = data?.files ?? [];
      // Only files of this very CID, whatever else the filter lets through.
      for (const f of files) if (typeof f.id === 'string' && typeof f.cid === 'string' && sameCid(f.cid, root)) ids.push(f.id);
      token = typeof data?.next_page_token === 'string' && data.next_page_token && files.length ? data.next_page_token : undefined;
      if (!token) break;
    }
    return ids;
  }

  private async deleteFile(id: string): Promise<void> {
    const res = await this.send({
      what: 'delete',
      url: `${this.apiUrl}/files/public/${encodeURIComponent(id)}`,
      auth: true,
      timeoutMs: 30_000,
      pass: [404],
      init: () => ({ method: 'DELETE' }),
    });
    await res.body?.cancel();
  }
}
