import { AbortMultipartUploadCommand, CompleteMultipartUploadCommand, CreateMultipartUploadCommand, UploadPartCommand } from '@aws-sdk/client-s3';
import { bucket, s3 } from './s3.ts';

/** S3's parts are at least 5 MiB (but the last); 8 MiB keeps memory at two parts. */
const PART_BYTES = 8 * 1024 * 1024;

/**
 * Writes `chunks` to `key` by an S3 multipart upload, in 8 MiB parts: one part on its way to S3
 * while the next fills, so memory stays at two parts whatever the object's size. `beforeComplete`
 * runs after the last chunk and before the object becomes visible; when it (or anything else)
 * throws, the upload is aborted and nothing appears under `key`.
 */
export async function writeMultipart(
  key: string,
  contentType: string,
  chunks: AsyncIterable<Uint8Array>,
  beforeComplete?: () => void | Promise<void>,
): Promise<void> {
  const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: key, ContentType: contentType }));
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
    await beforeComplete?.();
    await flush();
    await sending;
    await s3.send(new CompleteMultipartUploadCommand({ Bucket: bucket, Key: key, UploadId, MultipartUpload: { Parts: parts } }));
  } catch (e) {
    await sending?.catch(() => undefined);
    await s3.send(new AbortMultipartUploadCommand({ Bucket: bucket, Key: key, UploadId })).catch(() => undefined);
    throw e;
  }
}
