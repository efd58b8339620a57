import { DeleteObjectCommand, GetObjectCommand, HeadObjectCommand } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { createHash } from 'node:crypto';
import { errors } from '#lib/errors.ts';
import { binary, reply } from '#lib/http/reply.ts';
import { logger } from '#lib/log.ts';
import { isMissing } from './blockstore.ts';
import { storageConfig } from './config.ts';
import type { FileRecord } from './files.ts';
import { assembledKey, getPin, livePin, markAssembled, type Pin } from './pins.ts';
import { mapReadError, pinning } from './pinning.ts';
import { PASSWORD_CIRCUIT, proofCheck } from './proof.ts';
import { recordGroth16 } from '#lib/proofs/history.ts';
import { writeObject } from './object-writer.ts';
import { bucket, s3 } from './s3.ts';
import { s3BodyChunks } from './streams.ts';

export type Download =
  | { kind: 'bytes'; bytes: Buffer; filename: string; checksum: string }
  | { kind: 'redirect'; url: string; filename: string; checksum: string };

/** `attachment; filename="…"` with quotes and backslashes escaped, plus the UTF-8 form (RFC 6266). */
export function contentDisposition(filename: string): string {
  const ascii = filename.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '\\$&');
  const utf8 = encodeURIComponent(filename).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${ascii}"; filename*=UTF-8''${utf8}`;
}

function mismatch(file: FileRecord, where: string, got: string): never {
  logger.error('download integrity check failed', { fileId: file.id, cid: file.cid, where, expected: file.checksum, got });
  throw errors.checksumMismatch('stored content failed its integrity check');
}

/**
 * A download: the owner's file (`lookup`), the proof checked against the file's commitment, the
 * bytes read back from the pinning service (every block checked against its CID as it streams)
 * and hashed before anything is sent. Above the redirect threshold the answer is a presigned GET
 * of a copy whose bytes were checked against the checksum (`redirectTo`).
 */
export async function download(lookup: Promise<FileRecord>, proof: unknown, publicSignals: unknown): Promise<Download> {
  // The proof is checked while the file is looked up, and counts once its commitment is known;
  // an unknown file is still 404 whatever the proof, a file without a password ignores it.
  const check = proofCheck(proof, publicSignals);
  const file = await lookup.catch(async (e: unknown) => {
    await check.settled();
    throw e;
  });
  if (!file.zkEnabled) await check.settled();
  const large = file.size > storageConfig.DOWNLOAD_REDIRECT_BYTES;
  // The pin and its copy's ETag are read while the proof is checked (reads only: nothing is
  // handed out, and no error but the proof's is answered, before the proof holds).
  const found = livePin(file.cid).then(async (pin) => ({ pin, copyEtag: large ? await copyEtagOf(pin) : undefined }));
  found.catch(() => undefined);
  if (file.zkEnabled) await check.require(file.commitment!);
  // Best effort (a failed write is logged, never thrown), so it runs beside the answer's own work.
  const recorded =
    file.zkEnabled &&
    recordGroth16(file.userId, {
      type: 'storage',
      action: 'accepted',
      circuit: PASSWORD_CIRCUIT,
      proof,
      publicSignals,
      valid: true,
      links: { fileId: file.id, cid: file.cid },
    });
  try {
    const { pin, copyEtag } = await found;
    return large ? await redirectTo(file, pin, copyEtag) : await readWhole(file, pin);
  } finally {
    await recorded;
  }
}

/** A small file's bytes, every block checked as it streams and the whole hashed against the record. */
async function readWhole(file: FileRecord, pin: Pin): Promise<Download> {
  const adapter = await pinning();
  const hash = createHash('sha256');
  const parts: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of adapter.cat(file.cid, pin.ref)) {
      hash.update(chunk);
      size += chunk.length;
      if (size > file.size) break;
      parts.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.length));
    }
  } catch (e) {
    const mapped = mapReadError(e);
    if ((mapped as { code?: string }).code === 'CHECKSUM_MISMATCH')
      logger.error('download integrity check failed', { fileId: file.id, cid: file.cid, where: 'block' });
    throw mapped;
  }
  const got = hash.digest('hex');
  if (size !== file.size || got !== file.checksum) mismatch(file, 'content', got);
  return { kind: 'bytes', bytes: Buffer.concat(parts, size), filename: file.filename, checksum: got };
}

/**
 * The copy behind a 302 is handed out only as an object whose bytes were checked against the
 * file's checksum: the upload's data object, written from the very bytes the upload hashed
 * (`pin.ref.copy`, shards.ts), or `files/<cid>` written from verified blocks (`assemble`), or
 * either read back and hashed once — and its ETag at that moment recorded on the pin. Downloads
 * compare the copy's current ETag with the recorded one (a HEAD) instead of reading 100 MB again;
 * a copy that changed since (another ETag) is hashed again, and a wrong one is refused.
 */
async function redirectTo(file: FileRecord, pin: Pin, current: string | undefined): Promise<Download> {
  const key = copyKey(pin);
  const checked = pin.assembledEtag ?? pin.ref.copy?.etag;
  if (!current) {
    // The upload's own copy gone is its blocks gone (the leaves are ranges of it).
    if (pin.ref.copy) throw errors.cidNotFound();
    await assemble(file, pin);
  } else if (current !== checked) {
    const hash = createHash('sha256');
    let etag: string | undefined;
    try {
      const object = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
      etag = object.ETag;
      for await (const chunk of s3BodyChunks(object.Body)) hash.update(chunk);
    } catch (e) {
      // Gone since the HEAD (its last reference deleted meanwhile), or S3 failing: not a 500.
      throw isMissing(e) ? errors.cidNotFound() : mapReadError(e);
    }
    const got = hash.digest('hex');
    if (got !== file.checksum) mismatch(file, key, got);
    // The ETag of the very bytes just hashed (the GET's own), not of a later HEAD.
    if (etag) await markAssembled(file.cid, etag).catch(() => undefined);
  }
  const url = await getSignedUrl(
    s3,
    new GetObjectCommand({
      Bucket: bucket,
      Key: key,
      ResponseContentType: 'application/octet-stream',
      ResponseContentDisposition: contentDisposition(file.filename),
    }),
    { expiresIn: storageConfig.PRESIGN_SECONDS },
  );
  return { kind: 'redirect', url, filename: file.filename, checksum: file.checksum };
}

/** Where the pin's copy for redirects is: the upload's data object, else `files/<cid>`. */
const copyKey = (pin: Pin) => pin.ref.copy?.key ?? assembledKey(pin.cid);

/** The current ETag of the pin's copy, or undefined when there is none (yet). */
const copyEtagOf = (pin: Pin) => (pin.assembled || pin.ref.copy ? etagOf(copyKey(pin)) : Promise.resolve(undefined));

/** The object's ETag, or undefined when there is no such object; S3 failing is 502 PINNING_ERROR, not a missing copy. */
async function etagOf(key: string): Promise<string | undefined> {
  try {
    return (await s3.send(new HeadObjectCommand({ Bucket: bucket, Key: key }))).ETag ?? undefined;
  } catch (e) {
    if (isMissing(e)) return undefined;
    throw mapReadError(e);
  }
}

/**
 * Builds `files/<cid>` from the pinned content (one streamed PUT, memory bounded), every
 * block checked against its CID as it is read; the whole is hashed against the record's checksum
 * too when the adapter's reads are not checked block by block. Only a copy of the right size and
 * content is completed.
 */
async function assemble(file: FileRecord, pin: Pin): Promise<void> {
  const adapter = await pinning();
  const hash = adapter.verifiedReads ? undefined : createHash('sha256');
  let size = 0;
  async function* content() {
    try {
      for await (const chunk of adapter.cat(file.cid, pin.ref)) {
        hash?.update(chunk);
        size += chunk.length;
        yield chunk;
      }
    } catch (e) {
      throw mapReadError(e);
    }
  }
  const etag = await writeObject(assembledKey(file.cid), content(), {
    contentType: 'application/octet-stream',
    size: file.size,
    beforeComplete: () => {
      if (size !== file.size) mismatch(file, 'content', `${size} bytes`);
      const got = hash?.digest('hex');
      if (got !== undefined && got !== file.checksum) mismatch(file, 'content', got);
    },
  });
  await markAssembled(file.cid, etag).catch(() => undefined);
  // Unpinned meanwhile: the copy must not outlive its pin.
  const still = await getPin(file.cid);
  if (!still || still.state !== 'pinned') {
    await s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: assembledKey(file.cid) }));
    throw errors.cidNotFound();
  }
}

/** The HTTP answer of a download: the bytes, or 302 to the presigned GET of the verified copy. */
export function downloadReply(d: Download) {
  const headers = { 'x-checksum-sha256': `sha256:${d.checksum}`, 'cache-control': 'no-store' };
  if (d.kind === 'redirect') return reply(302, undefined, { headers: { ...headers, location: d.url } });
  return binary(d.bytes, { ...headers, 'content-disposition': contentDisposition(d.filename) });
}
