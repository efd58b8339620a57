import { CopyObjectCommand, DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { createHash, randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import * as z from 'zod';
import { clock } from '#lib/clock.ts';
import { claimPendingUpload, deletePendingUpload, putPendingUpload } from '#lib/data/uploads.ts';
import { closeJournal, openJournal } from '#lib/data/upload-journal.ts';
import { errors } from '#lib/errors.ts';
import { logger } from '#lib/log.ts';
import { parseMultipart } from '#lib/http/multipart.ts';
import { parseWith } from '#lib/http/validation.ts';
import { MAX_BODY_BYTES, MAX_FILE_BYTES } from './limits.ts';
import { storageConfig } from './config.ts';
import { newFileRecord, type FileRecord } from './files.ts';
import { assembledKey, commitRecord, getPin, markAssembled, PinBusy, releasePin, removeRecord } from './pins.ts';
import { pinning, type Added } from './pinning.ts';
import type { AddMeta } from './pinning-port.ts';
import { commitmentSchema, parseJsonField, PASSWORD_CIRCUIT, requireProof } from './proof.ts';
import { recordGroth16 } from '#lib/proofs/history.ts';
import { bucket, s3 } from './s3.ts';
import { s3BodyChunks } from './streams.ts';

const base64 = z
  .string()
  .max(4096)
  .regex(/^[A-Za-z0-9+/_-]*={0,2}$/, 'base64');
const checksumSchema = z
  .string()
  .regex(/^(sha256:)?[0-9a-fA-F]{64}$/, 'SHA-256 hex, optionally prefixed with sha256:')
  .transform((s) => s.replace(/^sha256:/, '').toLowerCase());

/** The text parts of an upload, both variants. */
const fieldsSchema = z.object({
  proof: z.string().optional(),
  publicSignals: z.string().optional(),
  commitment: commitmentSchema.optional(),
  checksum: checksumSchema.optional(),
  encryptedData: z.string().optional(),
  iv: base64.optional(),
  salt: base64.optional(),
  filename: z.string().max(255).optional(),
  uploadId: z.uuid().optional(),
});
type Fields = z.infer<typeof fieldsSchema>;

export interface UploadAnswer {
  variant: 'A' | 'B';
  record: FileRecord;
}

/** Variant A is the one that sends a `checksum`; without it the answer is variant B's. */
const variantOf = (f: Fields): 'A' | 'B' => (f.checksum !== undefined ? 'A' : 'B');

const cleanName = (name: string | undefined) =>
  (name ?? '')
    .replace(/[\u0000-\u001f\u007f]/g, '')
    .replace(/^.*[\\/]/, '')
    .slice(0, 255) || 'file';

/** The proof guard of an upload: A always has one; B may upload without (zkEnabled false). */
async function checkUploadProof(f: Fields, variant: 'A' | 'B'): Promise<boolean> {
  const given = [f.proof, f.publicSignals, f.commitment].filter((x) => x !== undefined && x !== '').length;
  if (given === 0 && variant === 'B') return false;
  if (given < 3) throw errors.invalidInput('proof, publicSignals and commitment go together');
  await requireProof(parseJsonField('proof', f.proof), parseJsonField('publicSignals', f.publicSignals), f.commitment!);
  return true;
}

/** Counts and hashes the bytes on their way into the pinning service; more than 100 MB aborts. */
function metered(source: AsyncIterable<Uint8Array>) {
  const hash = createHash('sha256');
  const state = { size: 0, checksum: '' };
  async function* tap() {
    for await (const chunk of source) {
      state.size += chunk.length;
      if (state.size > MAX_FILE_BYTES) throw errors.fileTooLarge();
      hash.update(chunk);
      yield chunk;
    }
    state.checksum = hash.digest('hex');
  }
  return { stream: tap(), state };
}

/** An import written to the store but not yet visible (no record): `settle` or `abandon` it. */
interface Staged {
  adapter: Awaited<ReturnType<typeof pinning>>;
  added: Added;
  state: { size: number; checksum: string };
  uploadId: string;
}

/**
 * The first half of the pipeline both paths share once the proof holds: the upload's journal
 * (lib/data/upload-journal.ts) is opened before the first block and stays until the upload is
 * settled — a crash leaves it, and the sweeper (sweeper.ts) takes back the blocks of a journal
 * older than an hour — then the bytes stream into the pinning service while they are hashed.
 */
async function stage(source: AsyncIterable<Uint8Array>, name: string, uploadId: string, staged?: AddMeta['staged']): Promise<Staged> {
  const adapter = await pinning();
  const { stream, state } = metered(source);
  await openJournal(uploadId);
  try {
    return { adapter, added: await adapter.add(stream, { name, uploadId, staged }), state, uploadId };
  } catch (e) {
    // add() has dropped what it wrote.
    await closeJournal(uploadId).catch(() => undefined);
    throw e;
  }
}

/** Drops a staged import that will not be committed (its journal stays if the cleanup fails). */
async function abandon({ adapter, added, uploadId }: Staged): Promise<void> {
  const existing = await getPin(added.cid).catch(() => undefined);
  try {
    await adapter.discard(added, existing?.state === 'pinned' ? existing.ref : undefined);
  } catch (err) {
    logger.error('upload cleanup failed', { cid: added.cid, error: err as Error });
    return;
  }
  await closeJournal(uploadId).catch(() => undefined);
}

/**
 * The second half: compare the checksum, then write the record and its pin reference in one
 * transaction — the one write that makes the file visible, so a crash at any point leaves either
 * the whole file or nothing visible. Any failure removes what this upload stored that nothing
 * else uses; no record is written.
 */
async function settle(
  userId: string,
  staged: Staged,
  meta: { filename: string; variant: 'A' | 'B'; fields: Fields; zkEnabled: boolean },
): Promise<{ record: FileRecord; added: Added }> {
  const { adapter, added, state, uploadId } = staged;
  let committed = false;
  let settled = true; // false when a cleanup failed: the journal then stays for the sweeper
  try {
    if (meta.fields.checksum && meta.fields.checksum !== state.checksum) {
      logger.warn('upload checksum mismatch', { userId, cid: added.cid });
      throw errors.checksumMismatch('checksum does not match the bytes received');
    }
    const record = newFileRecord({
      userId,
      cid: added.cid,
      filename: meta.filename,
      size: state.size,
      checksum: state.checksum,
      zkEnabled: meta.zkEnabled,
      commitment: meta.zkEnabled ? meta.fields.commitment : undefined,
      iv: meta.fields.iv,
      salt: meta.fields.salt,
      variant: meta.variant,
    });
    let result: Awaited<ReturnType<typeof commitRecord>>;
    try {
      result = await commitRecord(record, added, uploadId, adapter.name);
    } catch (e) {
      if (!(e instanceof PinBusy)) throw e;
      // An unpin of the same CID is in progress: finish it if it went stale, then try once more.
      await releasePin(added.cid);
      try {
        result = await commitRecord(record, added, uploadId, adapter.name);
      } catch (again) {
        if (again instanceof PinBusy) throw errors.conflict('the same content is being deleted; retry the upload');
        throw again;
      }
    }
    committed = true;
    if (meta.zkEnabled)
      await recordGroth16(userId, {
        type: 'storage',
        action: 'accepted',
        circuit: PASSWORD_CIRCUIT,
        proof: parseJsonField('proof', meta.fields.proof),
        publicSignals: parseJsonField('publicSignals', meta.fields.publicSignals),
        valid: true,
        links: { fileId: record.id, cid: added.cid },
      });
    if (result.created) {
      // A concurrent unpin of shared blocks may have removed some after we wrote them.
      if (!(await adapter.present(added.cid, result.pin.ref))) {
        settled = false;
        await removeRecord(record);
        settled = true;
        throw errors.conflict('content was removed by a concurrent delete; retry the upload');
      }
    } else {
      settled = false;
      await adapter.discard(added, result.pin.ref); // a duplicate of content already pinned
      settled = true;
    }
    return { record, added };
  } catch (e) {
    if (!committed) {
      const existing = await getPin(added.cid).catch(() => undefined);
      await adapter.discard(added, existing?.state === 'pinned' ? existing.ref : undefined).catch((err) => {
        settled = false;
        logger.error('upload cleanup failed', { cid: added.cid, error: err as Error });
      });
    }
    throw e;
  } finally {
    if (settled) await closeJournal(uploadId).catch(() => undefined);
  }
}

async function ingest(
  userId: string,
  source: AsyncIterable<Uint8Array>,
  meta: { filename: string; variant: 'A' | 'B'; fields: Fields; zkEnabled: boolean; uploadId: string; staged?: AddMeta['staged'] },
): Promise<{ record: FileRecord; added: Added }> {
  return settle(userId, await stage(source, meta.filename, meta.uploadId, meta.staged), meta);
}

/**
 * A file part that came before the fields that authorise it: kept in a temporary file (bounded
 * memory) until the whole body has been read and the proof checked; nothing reaches the store.
 */
async function spool(stream: Readable): Promise<{ path: string; dir: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'shroud-upload-'));
  const path = join(dir, 'file');
  try {
    await pipeline(stream, createWriteStream(path));
  } catch (e) {
    await rm(dir, { recursive: true, force: true });
    throw e;
  }
  return { path, dir };
}

/**
 * Whether the text fields before the file part already authorise storing it: they validate, and
 * either carry a complete proof that verifies or are a variant B without one. Then the file
 * streams straight into the store as it arrives; otherwise (a part missing or wrong so far) it
 * is spooled and everything is decided on the whole body, as if read twice.
 */
async function authorisedSoFar(before: Record<string, string>): Promise<{ fields: Fields; variant: 'A' | 'B'; zkEnabled: boolean } | undefined> {
  const parsed = fieldsSchema.safeParse(before);
  if (!parsed.success || parsed.data.uploadId !== undefined || parsed.data.encryptedData !== undefined) return undefined;
  const fields = parsed.data;
  const variant = variantOf(fields);
  const given = [fields.proof, fields.publicSignals, fields.commitment].filter((x) => x !== undefined && x !== '').length;
  if (given !== 3 && !(given === 0 && variant === 'B')) return undefined;
  try {
    return { fields, variant, zkEnabled: await checkUploadProof(fields, variant) };
  } catch {
    return undefined; // decided again on the whole body (a later part may replace one)
  }
}

const sameFields = (a: Fields, b: Fields) => JSON.stringify(Object.entries(a).sort()) === JSON.stringify(Object.entries(b).sort());

/**
 * `POST /api/storage/upload`, in one pass over the multipart body (the bytes, or locally the
 * request stream still arriving: lib/local/gateway.ts `streamRequest`). No block is written
 * before a proof is verified, whatever the order of the parts: when the fields before the file
 * part authorise it (authorisedSoFar), the file streams into the store as it is read and is
 * committed only once the whole body has been read and its fields are the same (if a later part
 * changed them, the proof is checked again on the whole); when they do not, the file part is
 * spooled to a temporary file and imported after the proof on the whole body holds. With
 * `uploadId` and no file part it finalises a presigned upload.
 */
export async function upload(userId: string, contentType: string | undefined, requestBody: () => Buffer | Readable): Promise<UploadAnswer> {
  // Checked before the body is touched: a JSON body has already been parsed into an object.
  if (!contentType || !/^multipart\/form-data/i.test(contentType)) throw errors.invalidInput('body: must be multipart/form-data');
  const body = requestBody();
  const maxFieldBytes = Math.ceil(MAX_FILE_BYTES / 3) * 4 + 4; // base64 `encryptedData` of a full-size file
  const uploadId = randomUUID();
  let filePart:
    | { filename: string; early?: NonNullable<Awaited<ReturnType<typeof authorisedSoFar>>> & { staged: Staged }; spooled?: { path: string; dir: string } }
    | undefined;
  let settled = false;
  try {
    const all = await parseMultipart(contentType, body, {
      maxFileBytes: MAX_FILE_BYTES,
      maxFieldBytes,
      maxBodyBytes: MAX_BODY_BYTES,
      onFile: async ({ field, filename, stream, fieldsBefore }) => {
        if (field !== 'file') throw errors.invalidInput(`${field}: the file part must be named "file"`);
        filePart = { filename };
        const early = await authorisedSoFar(fieldsBefore);
        if (early) filePart.early = { ...early, staged: await stage(stream, cleanName(early.fields.filename ?? filename), uploadId) };
        else filePart.spooled = await spool(stream);
      },
    });
    const fields = parseWith(fieldsSchema, all.fields, 'body');
    const variant = variantOf(fields);
    if (variant === 'A' && fields.encryptedData !== undefined)
      throw errors.invalidInput('encryptedData: a variant B part; variant A sends the ciphertext as `file`');
    const early = filePart?.early;
    const zkEnabled = early && sameFields(early.fields, fields) ? early.zkEnabled : await checkUploadProof(fields, variant);

    if (fields.uploadId) {
      if (filePart || fields.encryptedData) throw errors.invalidInput('uploadId: finalising a presigned upload takes no file part');
      return { variant, record: await finalizePresigned(userId, fields, variant, zkEnabled) };
    }
    // Variant B may carry the ciphertext as base64 `encryptedData`; its `file` part then only names it.
    if (fields.encryptedData !== undefined) {
      if (!/^[A-Za-z0-9+/]*={0,2}$/.test(fields.encryptedData)) throw errors.invalidInput('encryptedData: must be base64');
      const bytes = Buffer.from(fields.encryptedData, 'base64');
      if (bytes.length > MAX_FILE_BYTES) throw errors.fileTooLarge();
      const filename = cleanName(fields.filename ?? filePart?.filename);
      const { record } = await ingest(
        userId,
        (async function* () {
          yield bytes;
        })(),
        { filename, variant, fields, zkEnabled, uploadId },
      );
      return { variant, record };
    }
    if (!filePart) throw errors.invalidInput('file: missing file part');
    const meta = { filename: cleanName(fields.filename ?? filePart.filename), variant, fields, zkEnabled };
    if (early) {
      settled = true; // settle() cleans up after itself
      return { variant, record: (await settle(userId, early.staged, meta)).record };
    }
    const { record } = await ingest(userId, createReadStream(filePart.spooled!.path), { ...meta, uploadId });
    return { variant, record };
  } finally {
    const staged = filePart?.early?.staged;
    if (staged && !settled) await abandon(staged);
    if (filePart?.spooled) await rm(filePart.spooled.dir, { recursive: true, force: true }).catch(() => undefined);
  }
}

// ---------------------------------------------------------------------------------------------
// Presigned uploads (API Gateway caps a request at 10 MB, Lambda at 6 MB)

export const stagingKey = (id: string) => `uploads/${id}`;

export const uploadUrlInput = z.object({
  filename: z.string().max(255).optional(),
  size: z.number().int().nonnegative().optional(),
});

/** What the presigned PUT must carry (`If-None-Match` is signed: without it S3 refuses the PUT). */
const uploadUrlHeaders = { 'content-type': 'application/octet-stream', 'if-none-match': '*' } as const;

/** `POST /api/storage/upload-url`: a presigned PUT of the ciphertext to `uploads/<uploadId>`. */
export async function createUploadUrl(userId: string, input: z.infer<typeof uploadUrlInput>) {
  if (input.size !== undefined && input.size > MAX_FILE_BYTES) throw errors.fileTooLarge();
  const uploadId = randomUUID();
  const seconds = storageConfig.PRESIGN_SECONDS;
  const expiresAt = new Date(clock.nowMs() + seconds * 1000).toISOString();
  await putPendingUpload(uploadId, { userId, filename: input.filename, expiresAt }, seconds);
  // With a declared size the signature covers Content-Length, so S3 refuses any other size. The
  // signature covers `If-None-Match: *` too: the object is written once and never replaced while
  // the URL lives, so finalising reads, and copies for downloads, the very bytes it checked.
  const url = await getSignedUrl(
    s3,
    new PutObjectCommand({ Bucket: bucket, Key: stagingKey(uploadId), ContentLength: input.size, ContentType: 'application/octet-stream', IfNoneMatch: '*' }),
    { expiresIn: seconds, signableHeaders: new Set(['if-none-match', ...(input.size !== undefined ? ['content-length'] : [])]) },
  );
  return { uploadId, url, expiresAt, method: 'PUT' as const, headers: uploadUrlHeaders };
}

async function finalizePresigned(userId: string, fields: Fields, variant: 'A' | 'B', zkEnabled: boolean): Promise<FileRecord> {
  const id = fields.uploadId!;
  // Claim the upload: one finalisation per uploadId, only by its owner, only while it is live.
  const claimed = await claimPendingUpload(id, userId);
  if (!claimed) throw errors.notFound('unknown, expired or already finalised uploadId');
  const key = stagingKey(id);
  try {
    let size: number;
    let etag: string;
    try {
      const head = await s3.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
      size = head.ContentLength ?? 0;
      etag = head.ETag!;
    } catch {
      throw errors.invalidInput('uploadId: nothing was uploaded to the presigned URL');
    }
    if (size > MAX_FILE_BYTES) throw errors.fileTooLarge();
    // The import reads the bytes at this ETag, and the adapter may copy them server-side at the same one.
    const object = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key, IfMatch: etag }));
    const filename = cleanName(fields.filename ?? claimed.filename);
    const { record } = await ingest(userId, s3BodyChunks(object.Body), { filename, variant, fields, zkEnabled, uploadId: id, staged: { key, etag } });
    // The staged object is write-once (the presigned PUT is conditional, `createUploadUrl`): the
    // bytes the import just checked. Where the pin has no copy of its own (the s3 adapter's data
    // object is one), it is copied server-side as the large-download copy, its ETag recorded as
    // checked, so the first download hashes nothing.
    if (record.size > storageConfig.DOWNLOAD_REDIRECT_BYTES) {
      const pin = await getPin(record.cid);
      if (pin && !pin.assembled && !pin.ref.copy) {
        const copied = await s3.send(new CopyObjectCommand({ Bucket: bucket, Key: assembledKey(record.cid), CopySource: `${bucket}/${key}` }));
        await markAssembled(record.cid, copied.CopyObjectResult?.ETag).catch(() => undefined);
      }
    }
    return record;
  } finally {
    await s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: key })).catch(() => undefined);
    await deletePendingUpload(id).catch(() => undefined);
  }
}

/** The upload answer in the variant's shape (the group's envelope adds `success`). */
export function uploadResponse({ variant, record: r }: UploadAnswer) {
  return variant === 'A'
    ? { id: r.id, cid: r.cid, filename: r.filename, size: r.size, checksum: `sha256:${r.checksum}` }
    : { cid: r.cid, fileId: r.id, originalName: r.filename, originalSize: r.size, zkEnabled: r.zkEnabled };
}
