/**
 * The storage API from a client's side: encrypt, prove, upload; list; prove, download, check,
 * decrypt. Browser-safe (fetch, FormData, WebCrypto). The password never leaves this module;
 * what leaves is ciphertext, the iv and salt, the commitment and proofs.
 */
import { commitmentSalt, decryptFile, encryptFile, fromBase64, proofSecret, sha256Hex, toBase64 } from './file-crypto.ts';
import { passwordProof, type PasswordArtifacts } from './password-proof.ts';

export type Variant = 'A' | 'B';

export interface StorageClientOptions {
  baseUrl: string;
  /** Extra headers per request (e.g. the session cookie outside a browser). */
  headers?: () => Record<string, string>;
  fetch?: typeof fetch;
  /** The password circuit's artifacts (a browser passes URLs or bytes). */
  artifacts?: PasswordArtifacts;
  /** Ciphertexts larger than this go through the presigned upload (AWS caps requests at 6 MB). */
  directUploadLimit?: number;
}

export interface RemoteFile {
  id: string;
  cid: string;
  originalName: string;
  originalSize: number;
  zkEnabled: boolean;
  createdAt: string;
  iv?: string;
  salt?: string;
}

export class StorageError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'StorageError';
  }
}

export class StorageClient {
  private readonly fetch: typeof fetch;
  constructor(private readonly opts: StorageClientOptions) {
    this.fetch = opts.fetch ?? globalThis.fetch.bind(globalThis);
  }

  private async call(method: string, path: string, init: { json?: unknown; body?: BodyInit; headers?: Record<string, string> } = {}) {
    const headers: Record<string, string> = { ...(this.opts.headers?.() ?? {}), ...(init.headers ?? {}) };
    let body = init.body;
    if (init.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(init.json);
    }
    const res = await this.fetch(new URL(path, this.opts.baseUrl), { method, headers, body, redirect: 'manual' });
    if (res.status >= 400) {
      const err = (await res.json().catch(() => ({}))) as { error?: string; message?: string };
      throw new StorageError(res.status, err.error ?? 'HTTP_ERROR', err.message ?? `HTTP ${res.status}`);
    }
    return res;
  }

  private async proofFor(password: string, salt: Uint8Array) {
    return passwordProof(await proofSecret(password, salt), commitmentSalt(salt), this.opts.artifacts);
  }

  /** Encrypts `bytes` under `password` and uploads the ciphertext through variant A or B. */
  async upload(bytes: Uint8Array, password: string, opts: { filename: string; variant?: Variant; presigned?: boolean }) {
    const variant = opts.variant ?? 'A';
    const enc = await encryptFile(bytes, password);
    const { proof, publicSignals, commitment } = await this.proofFor(password, enc.salt);
    const checksum = await sha256Hex(enc.ciphertext);
    const form = new FormData();
    form.append('proof', JSON.stringify(proof));
    form.append('publicSignals', JSON.stringify(publicSignals));
    form.append('commitment', commitment);
    form.append('iv', toBase64(enc.iv));
    form.append('salt', toBase64(enc.salt));
    if (variant === 'A') form.append('checksum', `sha256:${checksum}`);
    const presigned = opts.presigned ?? enc.ciphertext.length > (this.opts.directUploadLimit ?? 4 * 1024 * 1024);
    if (presigned) {
      const res = await this.call('POST', '/api/storage/upload-url', { json: { filename: opts.filename, size: enc.ciphertext.length } });
      const { uploadId, url, headers } = (await res.json()) as { uploadId: string; url: string; headers: Record<string, string> };
      // The answer's headers are part of the signature (the PUT is a conditional, write-once one).
      const put = await this.fetch(url, { method: 'PUT', body: enc.ciphertext as BodyInit, headers });
      if (!put.ok) throw new StorageError(put.status, 'UPLOAD_FAILED', `presigned PUT answered ${put.status}`);
      form.append('uploadId', uploadId);
      form.append('filename', opts.filename);
    } else {
      form.append('file', new Blob([enc.ciphertext as BlobPart], { type: 'application/octet-stream' }), opts.filename);
    }
    const res = await this.call('POST', '/api/storage/upload', { body: form });
    const out = (await res.json()) as Record<string, unknown>;
    return { fileId: String(out.id ?? out.fileId), cid: String(out.cid), checksum: `sha256:${checksum}`, response: out };
  }

  /** Variant B's list, every page (it carries the iv and salt a download needs). */
  async files(): Promise<RemoteFile[]> {
    return this.allPages<RemoteFile>('/api/storage/files');
  }

  /** Variant A's list, every page. */
  async list(): Promise<{ id: string; cid: string; filename: string; size: number; createdAt: string; checksum: string }[]> {
    return this.allPages('/api/storage/list');
  }

  /** A list's pages followed to the end (each answers up to 1000 files, newest first). */
  private async allPages<T>(path: string): Promise<T[]> {
    const all: T[] = [];
    let cursor: string | null = null;
    do {
      const page = (await (await this.call('GET', cursor ? `${path}?cursor=${encodeURIComponent(cursor)}` : path)).json()) as {
        files: T[];
        nextCursor?: string | null;
      };
      all.push(...page.files);
      // A cursor answered twice would page forever: a server fault, not the end.
      if (page.nextCursor && page.nextCursor === cursor) throw new StorageError(502, 'INTERNAL_ERROR', 'the file list repeated its cursor');
      cursor = page.nextCursor ?? null;
    } while (cursor);
    return all;
  }

  /** Downloads the ciphertext with a fresh proof, checks its SHA-256, and decrypts it. */
  async download(fileId: string, password: string, opts: { variant?: Variant } = {}): Promise<Uint8Array> {
    const file = (await this.files()).find((f) => f.id === fileId);
    if (!file) throw new StorageError(404, 'CID_NOT_FOUND', 'file not found');
    if (!file.salt || !file.iv) throw new StorageError(400, 'NOT_DECRYPTABLE', 'the file was stored without its iv and salt');
    const salt = fromBase64(file.salt);
    const { proof, publicSignals } = await this.proofFor(password, salt);
    const res =
      (opts.variant ?? 'B') === 'B'
        ? await this.call('POST', '/api/storage/download', { json: { fileId, proof, publicSignals } })
        : await this.call('GET', `/api/storage/download/${encodeURIComponent(file.cid)}`, {
            headers: { 'x-zk-proof': JSON.stringify(proof), 'x-zk-public-signals': JSON.stringify(publicSignals) },
          });
    const expected = res.headers.get('x-checksum-sha256');
    // Above the redirect threshold the bytes come from a presigned URL: no cookie goes there.
    const bytesRes = res.status === 302 ? await this.fetch(res.headers.get('location')!) : res;
    if (!bytesRes.ok) throw new StorageError(bytesRes.status, 'DOWNLOAD_FAILED', `download answered ${bytesRes.status}`);
    const ciphertext = new Uint8Array(await bytesRes.arrayBuffer());
    if (expected && `sha256:${await sha256Hex(ciphertext)}` !== expected)
      throw new StorageError(422, 'CHECKSUM_MISMATCH', 'downloaded bytes do not match the checksum');
    return decryptFile({ ciphertext, iv: fromBase64(file.iv), salt }, password);
  }

  async share(fileId: string, expiresIn: number) {
    return (await (await this.call('POST', '/api/storage/share', { json: { fileId, expiresIn } })).json()) as {
      shareToken: string;
      shareUrl: string;
      expiresAt: string;
    };
  }

  async shared(token: string) {
    return (await (await this.call('GET', `/api/storage/shared/${encodeURIComponent(token)}`)).json()) as {
      file: { cid: string; filename: string; size: number };
    };
  }

  async delete(fileId: string, variant: Variant = 'A') {
    const path = variant === 'A' ? `/api/storage/${encodeURIComponent(fileId)}` : `/api/storage/files/${encodeURIComponent(fileId)}`;
    return (await (await this.call('DELETE', path)).json()) as Record<string, unknown>;
  }
}
