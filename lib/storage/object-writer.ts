import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  PutObjectCommand,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { Readable } from 'node:stream';
import { bucket, s3 } from './s3.ts';

/** S3's parts are at least 5 MiB (but the last); 8 MiB keeps memory at two parts. */
const PART_BYTES = 8 * 1024 * 1024;

export interface WriteOptions {
  contentType: string;
  /** The object's exact size, when known: one streamed PUT instead of a multipart upload. */
  size?: number;
  /** Runs after the last chunk was read and before the object can become visible; throwing leaves no object. */
  beforeComplete?: () => void | Promise<void>;
}

/**
 * The one writer of large derived objects (the verified download copy `files/<cid>`, the
 * gateway's `cars/<cid>`): `chunks` go to `key` with bounded memory, and only whole, checked
 * content ever becomes visible.
 *
 * - Size known: a single PUT whose body is the stream itself (Content-Length set, nothing
 *   buffered beyond the stream's 1 MiB high-water mark). The last chunk is held back until
 *   `beforeComplete` passes, so a failed check cuts the body short of its Content-Length and S3
 *   stores nothing. One request: no part bookkeeping, and no re-assembly of parts by the store.
 * - Size unknown: a multipart upload in 8 MiB parts, one on its way while the next fills;
 *   completed only after `beforeComplete`, aborted on any failure.
 */
/** Returns the new object's ETag. */
export async function writeObject(key: string, chunks: AsyncIterable<Uint8Array>, options: WriteOptions): Promise<string | undefined> {
  if (options.size === undefined) return writeMultipart(key, chunks, options);
  const size = options.size;
  // A failure inside the body must not surface as a stream error (the HTTP handler would wait for
  // the missing bytes): it is kept, the body ends, and the request is aborted.
  const abort = new AbortController();
  let failure: unknown;
  async function* checked() {
    try {
      let held: Uint8Array | undefined;
      let total = 0;
      for await (const chunk of chunks) {
        total += chunk.length;
        if (total > size) throw new Error(`${key}: more bytes than the declared ${size}`);
        if (held) yield held;
        held = chunk;
      }
      if (total !== size) throw new Error(`${key}: ${total} bytes, not the declared ${size}`);
      await options.beforeComplete?.();
      if (held) yield held;
    } catch (e) {
      failure = e;
      abort.abort();
    }
  }
  try {
    const out = await s3.send(
      new PutObjectCommand({
        Bucket: bucket,
        Key: key,
        Body: Readable.from(checked(), { objectMode: false, highWaterMark: 1024 * 1024 }),
        ContentLength: size,
        ContentType: options.contentType,
      }),
      { abortSignal: abort.signal },
    );
    if (failure) throw failure;
    return out.ETag;
  } catch (e) {
    // S3 keeps nothing of a body cut short; a store that does (a local emulator) must not either.
    await s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: key })).catch(() => undefined);
    throw failure ?? e;
  }
}

async function writeMultipart(key: string, chunks: AsyncIterable<Uint8Array>, options: WriteOptions): Promise<string | undefined> {
  const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: key, ContentType: options.contentType }));
  const parts: { ETag: string; PartNumber: number }[] = [];
  let pending: Uint8Array[] = [];
  let pendingBytes = 0;
  let sending: Promise<void> | undefined;
  const flush = async () => {
    await sending; // at most one part in flight
    if (!pendingBytes) return;
    const body = Buffer.concat(pending, pendingBytes);
    pending = [];
    pendingBytes = 0;
    const PartNumber = parts.length + 1;
    parts.push({ ETag: '', PartNumber });
    sending = s3.send(new UploadPartCommand({ Bucket: bucket, Key: key, UploadId, PartNumber, Body: body, ContentLength: body.length })).then((out) => {
      parts[PartNumber - 1]!.ETag = out.ETag!;
    });
    sending.catch(() => undefined); // awaited by the next flush
  };
  try {
    for await (const chunk of chunks) {
      pending.push(chunk);
      pendingBytes += chunk.length;
      if (pendingBytes >= PART_BYTES) await flush();
    }
    await options.beforeComplete?.();
    await flush();
    await sending;
    const done = await s3.send(new CompleteMultipartUploadCommand({ Bucket: bucket, Key: key, UploadId, MultipartUpload: { Parts: parts } }));
    return done.ETag;
  } catch (e) {
    await sending?.catch(() => undefined);
    await s3.send(new AbortMultipartUploadCommand({ Bucket: bucket, Key: key, UploadId })).catch(() => undefined);
    throw e;
  }
}
