/**
 * Encrypted files over the typed client: encrypt and prove here, upload with progress; prove,
 * download with progress, check the SHA-256 and decrypt here. The password never leaves this
 * module. The password circuit's artifacts come from the API itself (checked against the sha256
 * it lists), so the same code runs in a browser, in the CLI and in tests.
 */
import type { ProgressListener, ShroudClient } from './api.ts';
import { ShroudError } from './api.ts';
import { circuitArtifacts } from './circuit-artifacts.ts';
import { commitmentSalt, decryptFile, encryptFile, fromBase64, proofSecret, sha256Hex, toBase64 } from './file-crypto.ts';
import { PASSWORD_CIRCUIT, passwordProof, type PasswordArtifacts } from './password-proof.ts';

/** What the slow steps report, for a progress display. */
export type Stage = 'encrypting' | 'proving' | 'uploading' | 'downloading' | 'verifying' | 'decrypting';

export interface FileTransferOptions {
  onStage?: (stage: Stage) => void;
  onProgress?: ProgressListener;
}

/** The password circuit's wasm and zkey from the API, each checked against the sha256 the listing gives. */
export const passwordArtifacts = (client: ShroudClient): Promise<PasswordArtifacts> => circuitArtifacts(client, PASSWORD_CIRCUIT);

/** A password proof for the file whose PBKDF2 salt is `salt` (the commitment stored beside it). */
export async function proofFor(client: ShroudClient, password: string, salt: Uint8Array) {
  return passwordProof(await proofSecret(password, salt), commitmentSalt(salt), await passwordArtifacts(client));
}

export interface UploadOptions extends FileTransferOptions {
  /**
   * A ciphertext above this many bytes goes to storage by a presigned PUT and is then finalised
   * (`POST /api/storage/upload-url`): on AWS a request through the API carries 6 MB at most.
   * Left out, every upload goes through the API (the local runtime takes 100 MB so).
   */
  presignedAbove?: number;
}

/** Encrypts, proves and uploads (variant B's fields plus variant A's checksum): the stored file's id, CID and checksum. */
export async function uploadFile(client: ShroudClient, bytes: Uint8Array, password: string, filename: string, o: UploadOptions = {}) {
  o.onStage?.('encrypting');
  const enc = await encryptFile(bytes, password);
  o.onStage?.('proving');
  const { proof, publicSignals, commitment } = await proofFor(client, password, enc.salt);
  const checksum = `sha256:${await sha256Hex(enc.ciphertext)}`;
  const form = new FormData();
  form.append('proof', JSON.stringify(proof));
  form.append('publicSignals', JSON.stringify(publicSignals));
  form.append('commitment', commitment);
  form.append('iv', toBase64(enc.iv));
  form.append('salt', toBase64(enc.salt));
  form.append('checksum', checksum);
  o.onStage?.('uploading');
  if (o.presignedAbove !== undefined && enc.ciphertext.length > o.presignedAbove) {
    const u = await client.api.storageUploadUrl({ body: { filename, size: enc.ciphertext.length } });
    // The answer's headers are signed with the URL (a write-once, conditional PUT).
    const put = await fetch(u.url, { method: 'PUT', body: enc.ciphertext as BodyInit, headers: u.headers });
    if (!put.ok) throw new ShroudError('UPLOAD_FAILED', put.status >= 500 ? 502 : put.status, `the storage refused the upload's bytes (HTTP ${put.status})`);
    o.onProgress?.({ loaded: enc.ciphertext.length, total: enc.ciphertext.length });
    form.append('uploadId', u.uploadId);
    form.append('filename', filename);
  } else {
    form.append('file', new Blob([enc.ciphertext as BlobPart], { type: 'application/octet-stream' }), filename);
  }
  const out = await client.api.storageUpload({ body: form }, { onUploadProgress: o.onProgress });
  const id = 'id' in out ? out.id : out.fileId;
  return { id, cid: out.cid, filename, size: bytes.length, encryptedSize: enc.ciphertext.length, checksum };
}

type RemoteFile = Awaited<ReturnType<ShroudClient['api']['storageFiles']>>['files'][number];

/** The caller's files, newest first, page after page (the list answers up to 1000 at a time). */
export async function* eachFile(client: ShroudClient): AsyncGenerator<RemoteFile> {
  let cursor: string | undefined;
  do {
    const page = await client.api.storageFiles({ query: cursor ? { cursor } : {} });
    yield* page.files;
    // A cursor answered twice would page forever: a server fault, not the end.
    if (page.nextCursor && page.nextCursor === cursor) throw new ShroudError('INTERNAL_ERROR', 502, 'the file list repeated its cursor');
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
}

/** Every file of the caller, newest first. */
export async function listAllFiles(client: ShroudClient): Promise<RemoteFile[]> {
  const all: RemoteFile[] = [];
  for await (const f of eachFile(client)) all.push(f);
  return all;
}

/** Proves, downloads (following the presigned redirect of large files), checks the checksum and decrypts. */
export async function downloadFile(client: ShroudClient, fileId: string, password: string, o: FileTransferOptions = {}) {
  let file: RemoteFile | undefined;
  for await (const f of eachFile(client)) {
    if (f.id === fileId || f.cid === fileId) {
      file = f;
      break;
    }
  }
  if (!file) throw new ShroudError('CID_NOT_FOUND', 404, 'file not found');
  if (!file.salt || !file.iv) throw new ShroudError('NOT_DECRYPTABLE', 400, 'the file was stored without its iv and salt');
  const salt = fromBase64(file.salt);
  o.onStage?.('proving');
  const { proof, publicSignals } = await proofFor(client, password, salt);
  o.onStage?.('downloading');
  let expected: string | null = null;
  const answer = await client.api.storageDownload(
    { body: { fileId: file.id, proof, publicSignals } },
    { onDownloadProgress: o.onProgress, onResponse: (res) => (expected = res.headers.get('x-checksum-sha256')) },
  );
  let ciphertext: Uint8Array;
  if (answer instanceof Uint8Array) ciphertext = answer;
  else ciphertext = await client.fetchBytes(answer.redirect, o.onProgress);
  o.onStage?.('verifying');
  if (expected && `sha256:${await sha256Hex(ciphertext)}` !== expected)
    throw new ShroudError('CHECKSUM_MISMATCH', 422, 'downloaded bytes do not match the checksum');
  o.onStage?.('decrypting');
  const bytes = await decryptFile({ ciphertext, iv: fromBase64(file.iv), salt }, password);
  return { filename: file.originalName, bytes };
}
