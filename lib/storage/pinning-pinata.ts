import { createWriteStream, openAsBlob } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { PinataSDK } from 'pinata';
import { errors } from '#lib/errors.ts';
import { discardingStore, importContent } from './cid.ts';
import type { StorageConfig } from './config.ts';
import { webStreamChunks } from './streams.ts';
import { pinningCall, type Added, type PinningAdapter, type PinRef } from './pinning-port.ts';

/**
 * Pinata through its SDK (uploads and unpins). The bytes stream to a temporary file while the
 * project's CID is computed (a hash-only import), then the SDK uploads that file as a disk-backed
 * Blob: a 100 MB file is never held in memory by this adapter. Reads go to the gateway with a
 * plain streamed fetch, because the SDK's `gateways.get` buffers the whole file and insists on
 * https. Every failure of the service is 502 PINNING_ERROR.
 */
export class PinataPinning implements PinningAdapter {
  readonly name = 'pinata' as const;
  /** The gateway's bytes come unchecked: the whole file is hashed against the record. */
  readonly verifiedReads = false;
  private readonly sdk: PinataSDK;
  private readonly gateway: string;

  constructor(cfg: Pick<StorageConfig, 'PINATA_JWT' | 'PINATA_GATEWAY' | 'PINATA_API_URL' | 'PINATA_UPLOAD_URL'>) {
    this.sdk = new PinataSDK({ pinataJwt: cfg.PINATA_JWT, endpointUrl: cfg.PINATA_API_URL, uploadUrl: cfg.PINATA_UPLOAD_URL });
    const gw = cfg.PINATA_GATEWAY ?? 'gateway.pinata.cloud';
    this.gateway = (/^https?:\/\//.test(gw) ? gw : `https://${gw}`).replace(/\/+$/, '');
  }

  async add(source: AsyncIterable<Uint8Array>, meta: { name: string; uploadId: string }): Promise<Added> {
    const dir = await mkdtemp(join(tmpdir(), 'shroud-pin-'));
    const path = join(dir, 'content');
    try {
      const out = createWriteStream(path);
      async function* tee() {
        for await (const chunk of source) {
          if (!out.write(chunk)) await once(out, 'drain');
          yield chunk;
        }
      }
      const { cid, size } = await importContent(tee(), discardingStore);
      out.end();
      await once(out, 'close');
      const file = new File([await openAsBlob(path)], meta.name || 'file', { type: 'application/octet-stream' });
      const up = await pinningCall('upload', async () => await this.sdk.upload.public.file(file).name(meta.name || cid.toString()));
      if (!up?.id || !up?.cid) throw errors.pinningError('pinning service error (upload answered no id)');
      return { cid: cid.toString(), size, ref: { pinataId: up.id, pinataCid: up.cid } };
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  async discard(added: Added, existing?: PinRef): Promise<void> {
    if (added.ref.pinataId && added.ref.pinataId !== existing?.pinataId) await this.unpin(added.cid, added.ref);
  }

  async unpin(_cid: string, ref: PinRef): Promise<void> {
    if (!ref.pinataId) return;
    const out = await pinningCall('unpin', () => this.sdk.files.public.delete([ref.pinataId!]));
    // The SDK reports a failed delete in its result instead of throwing.
    const failed = out.find((r) => /error|fail/i.test(String(r.status)));
    if (failed) throw errors.pinningError(`pinning service error (unpin: ${String(failed.status).slice(0, 80)})`);
  }

  async present(): Promise<boolean> {
    return true; // the service said it stored the file; nothing of ours to look at
  }

  async *cat(cid: string, ref: PinRef): AsyncIterable<Uint8Array> {
    const res = await pinningCall('read', () => fetch(`${this.gateway}/ipfs/${ref.pinataCid ?? cid}`));
    if (res.status === 404) throw errors.cidNotFound();
    if (!res.ok || !res.body) throw errors.pinningError(`pinning service error (read: HTTP ${res.status})`);
    try {
      for await (const chunk of webStreamChunks(res.body)) yield chunk;
    } catch {
      throw errors.pinningError('pinning service error (read interrupted)');
    }
  }
}
