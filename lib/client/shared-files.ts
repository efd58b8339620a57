/**
 * Receiving a shared file, for the share page (lib/web/share.ts) and `shroud receive`
 * (lib/cli/receive.ts): the link's token read from the link, the file's name and size, then the
 * file password proved here (the same Groth16 password proof as the owner's download), the
 * ciphertext fetched through the link, checked against its SHA-256 and decrypted here.
 */
import { ShroudError, type ShroudClient } from './api.ts';
import { decryptFile, fromBase64, sha256Hex } from './file-crypto.ts';
import { proofFor, type FileTransferOptions } from './files.ts';

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
  const { iv, salt } = info.file;
  if (!iv || !salt) throw new ShroudError('NOT_DECRYPTABLE', 400, 'the file was stored without its iv and salt: it cannot be decrypted here');
  const saltBytes = fromBase64(salt);
  o.onStage?.('proving');
  const { proof, publicSignals } = await proofFor(client, password, saltBytes);
  o.onStage?.('downloading');
  let expected: string | null = null;
  const answer = await client.api.storageSharedDownload(
    { params: { token }, body: { proof, publicSignals } },
    { onDownloadProgress: o.onProgress, onResponse: (res) => (expected = res.headers.get('x-checksum-sha256')) },
  );
  const ciphertext = answer instanceof Uint8Array ? answer : await client.fetchBytes(answer.redirect, o.onProgress);
  o.onStage?.('verifying');
  if (expected && `sha256:${await sha256Hex(ciphertext)}` !== expected)
    throw new ShroudError('CHECKSUM_MISMATCH', 422, 'downloaded bytes do not match the checksum');
  o.onStage?.('decrypting');
  const bytes = await decryptFile({ ciphertext, iv: fromBase64(iv), salt: saltBytes }, password);
  return { filename: info.file.filename, bytes };
}
