import { S3Client } from '@aws-sdk/client-s3';
import { config, dependencyClientSettings } from '#lib/config.ts';
import { captureClient } from '#lib/tracer.ts';

/** Built once per cold start. Locally: the embedded S3 server on loopback, path-style. */
export const s3 = captureClient(new S3Client({
  region: config.AWS_REGION,
  // Blocks and 100 MB copies: the wait is for a stalled transfer, not a whole one.
  ...dependencyClientSettings(60_000),
  // No extra CRC32 per request: every stored block is checked against its CID on every read and
  // every file against its SHA-256, buffered bodies are still covered by SigV4's payload hash, and
  // a streamed body (the download copy) then goes as a plain Content-Length PUT, which S3 and the
  // local s3rver both take (s3rver would store aws-chunked framing as the object's bytes).
  requestChecksumCalculation: 'WHEN_REQUIRED',
  responseChecksumValidation: 'WHEN_REQUIRED',
  ...(config.S3_ENDPOINT
    ? { endpoint: config.S3_ENDPOINT, forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } }
    : {}),
}));

export const bucket = config.BUCKET_NAME;
