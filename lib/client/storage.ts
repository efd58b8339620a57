/**
 * The storage API from a client's side, over the typed client (lib/client/api.ts): the one storage
 * client the CLI (lib/cli/storage.ts, receive.ts) and the web pages (lib/web/terminal.ts, share.ts)
 * use. Encrypt and prove here, upload with progress; prove, download with progress, check the
 * SHA-256 and decrypt here; open a share link and receive its file the same way. The password never
 * leaves this module. The password circuit's artifacts come from the API itself (checked against
 * the sha256 it lists), so the same code runs in a browser, in the CLI and in tests.
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

/**
 * Encrypts, proves and uploads: the proof, the iv and salt (so any client can decrypt it later) and the
 * ciphertext's checksum (docs/storage.md, the upload's parts). The stored file's id, CID and checksum.
 */
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
    await client.putBytes(u.url, enc.ciphertext, u.headers);
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

export interface DownloadOptions extends FileTransferOptions {
  /**
   * Through `GET /api/storage/download/:cid` with the proof in the `X-ZK-Proof` and
   * `X-ZK-Public-Signals` headers (the route a curl user takes) instead of `POST /api/storage/download`.
   */
  byCid?: boolean;
}

/** Proves, downloads (following the presigned redirect of large files), checks the checksum and decrypts. */
export async function downloadFile(client: ShroudClient, fileId: string, password: string, o: DownloadOptions = {}) {
  let file: RemoteFile | undefined;
  for await (const f of eachFile(client)) {
    if (f.id === fileId || f.cid === fileId) {
      file = f;
      break;
    }
  }
  if (!file) throw new ShroudError('CID_NOT_FOUND', 404, 'file not found');
  const { cid, id } = file;
  const bytes = await fetchAndDecrypt(client, file, password, o, (proof, publicSignals, call) =>
    o.byCid
      ? client.api.storageDownloadCid(
          { params: { cid } },
          { ...call, headers: { 'x-zk-proof': JSON.stringify(proof), 'x-zk-public-signals': JSON.stringify(publicSignals) } },
        )
      : client.api.storageDownload({ body: { fileId: id, proof, publicSignals } }, call),
  );
  return { filename: file.originalName, bytes };
}

type Download = (
  proof: unknown,
  publicSignals: unknown,
  call: { onDownloadProgress?: ProgressListener; onResponse: (res: Response) => void },
) => Promise<Uint8Array | { redirect: string }>;

/**
 * The download both the owner and a link's recipient make: a fresh password proof for the file's
 * salt, the ciphertext (or the presigned copy it redirects to), its SHA-256 checked against
 * `X-Checksum-SHA256`, then decrypted.
 */
async function fetchAndDecrypt(
  client: ShroudClient,
  file: { iv?: string | null; salt?: string | null },
  password: string,
  o: FileTransferOptions,
  download: Download,
): Promise<Uint8Array> {
  const { iv, salt } = file;
  if (!iv || !salt) throw new ShroudError('NOT_DECRYPTABLE', 400, 'the file was stored without its iv and salt: it cannot be decrypted here');
  const saltBytes = fromBase64(salt);
  o.onStage?.('proving');
  const { proof, publicSignals } = await proofFor(client, password, saltBytes);
  o.onStage?.('downloading');
  let expected: string | null = null;
  const answer = await download(proof, publicSignals, {
    onDownloadProgress: o.onProgress,
    onResponse: (res) => (expected = res.headers.get('x-checksum-sha256')),
  });
  const ciphertext = answer instanceof Uint8Array ? answer : await client.fetchBytes(answer.redirect, o.onProgress);
  o.onStage?.('verifying');
  if (expected && `sha256:${await sha256Hex(ciphertext)}` !== expected)
    throw new ShroudError('CHECKSUM_MISMATCH', 422, 'downloaded bytes do not match the checksum');
  o.onStage?.('decrypting');
  return decryptFile({ ciphertext, iv: fromBase64(iv), salt: saltBytes }, password);
}

// Share links: receiving a shared file (the share page, lib/web/share.ts, and `shroud receive`).

/** A share token: 256 random bits in base64url (lib/storage/share-links.ts). */
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

export interface ShareRef {
  token: string;
  /** The origin of a link given whole (its API is on the same origin); absent for a bare token. */
  origin?: string;
}

/** `http://host/share/<token>` (a trailing slash, query or fragment ignored) or the bare token. */
export function shareRefOf(given: string): ShareRef {
  const text = given.trim();
  if (TOKEN.test(text)) return { token: text };
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ShroudError('USAGE', 0, 'not a share link or token: a link looks like https://…/share/<43 characters>');
  }
  const m = /\/share\/([A-Za-z0-9_-]+)\/?$/.exec(url.pathname);
  if (!m || !TOKEN.test(m[1]!)) throw new ShroudError('USAGE', 0, `not a share link: ${url.pathname.slice(0, 80)} is not /share/<token>`);
  return { token: m[1]!, origin: url.origin };
}

export type SharedInfo = Awaited<ReturnType<ShroudClient['api']['storageShared']>>;

/** Why a link does not open, in the recipient's words (the API's codes: lib/storage/share-links.ts). */
export function shareProblem(e: unknown): string {
  if (!(e instanceof ShroudError)) return (e as Error).message;
  switch (e.code) {
    case 'SHARE_EXPIRED':
      return 'this link has expired: ask the person who shared it for a new one';
    case 'SHARE_REVOKED':
      return 'this link was revoked by the person who shared it';
    case 'NOT_FOUND':
      return 'no such share link: check that it was copied whole';
    case 'CID_NOT_FOUND':
      return 'the shared file was deleted by its owner';
    case 'INVALID_PROOF':
      return 'wrong file password: this is the password the file was uploaded with, which the person who shared it must tell you';
    default:
      return `${e.code}: ${e.message}`;
  }
}

/** AES-GCM's tag, the only bytes the encryption adds (lib/client/file-crypto.ts: no header). */
const GCM_TAG_BYTES = 16;

/** The file's own size: the stored size is the ciphertext's, which a file encrypted here exceeds by the tag. */
export const sharedFileSize = (info: SharedInfo) => (info.file.iv && info.file.salt ? Math.max(0, info.file.size - GCM_TAG_BYTES) : info.file.size);

/** The file behind the link: name, size, and the iv and salt to decrypt it. */
export const sharedInfo = (client: ShroudClient, token: string): Promise<SharedInfo> => client.api.storageShared({ params: { token } });

/** Proves the file password, downloads through the link, checks and decrypts: the file's bytes. */
export async function receiveShared(client: ShroudClient, token: string, info: SharedInfo, password: string, o: FileTransferOptions = {}) {
  const bytes = await fetchAndDecrypt(client, info.file, password, o, (proof, publicSignals, call) =>
    client.api.storageSharedDownload({ params: { token }, body: { proof, publicSignals } }, call),
  );
  return { filename: info.file.filename, bytes };
}
