import { CopyObjectCommand, DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import * as z from 'zod';
import { clock } from '#lib/clock.ts';
import { claimPendingUpload, deletePendingUpload, putPendingUpload } from '#lib/data/uploads.ts';
import { errors } from '#lib/errors.ts';
import { parseMultipart } from '#lib/http/multipart.ts';
import { parseWith } from '#lib/http/validation.ts';
import { abandon, cleanName, fieldsSchema, ingest, settle, stage, type Fields, type Staged } from './upload-pipeline.ts';
import { MAX_BODY_BYTES, MAX_FILE_BYTES } from './limits.ts';
import { storageConfig } from './config.ts';
import type { FileRecord } from './files.ts';
import { assembledKey, getPin, markAssembled } from './pins.ts';
import { parseJsonField, requireProof } from './proof.ts';
import { bucket, s3 } from './s3.ts';
import { s3BodyChunks } from './streams.ts';

export interface UploadAnswer {
  variant: 'A' | 'B';
  record: FileRecord;
}

/** Variant A is the one that sends a `checksum`; without it the answer is variant B's. */
const variantOf = (f: Fields): 'A' | 'B' => (f.checksum !== undefined ? 'A' : 'B');

/** The proof guard of an upload: A always has one; B may upload without (zkEnabled false). */
async function checkUploadProof(f: Fields, variant: 'A' | 'B'): Promise<boolean> {
  const given = [f.proof, f.publicSignals, f.commitment].filter((x) => x !== undefined && x !== '').length;
  if (given === 0 && variant === 'B') return false;
  if (given < 3) throw errors.invalidInput('proof, publicSignals and commitment go together');
  await requireProof(parseJsonField('proof', f.proof), parseJsonField('publicSignals', f.publicSignals), f.commitment!);
  return true;
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
