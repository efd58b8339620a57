import { S3Client } from '@aws-sdk/client-s3';
import { config, dependencyClientSettings } from '#lib/config.ts';
import { captureClient } from '#lib/tracer.ts';

/** Built once per cold start. Locally: the embedded S3 server on loopback, path-style. */
export const s3 = captureClient(
  new S3Client({
    region: config.AWS_REGION,
    // Blocks and 100 MB copies: the wait is for a stalled transfer, not a whole one.
    ...dependencyClientSettings(60_000),
    // No extra CRC32 per request: every stored block is checked against its CID on every read and
    // every file against its SHA-256, buffered bodies are still covered by SigV4's payload hash, and
    // a streamed body (the download copy) then goes as a plain Content-Length PUT, which S3 and the
    // local s3rver both take (s3rver would store aws-chunked framing as the object's bytes).
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    ...(config.S3_ENDPOINT ? { endpoint: config.S3_ENDPOINT, forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } } : {}),
  }),
);

/**
 * The local S3 on loopback only: request bodies are signed as UNSIGNED-PAYLOAD instead of with
 * their SHA-256 (a third pass over every shard's 8 MiB). The local server checks no payload hash,
 * and loopback has no wire to protect; every block is checked against its CID on read anyway.
 * On AWS (no S3_ENDPOINT, or any other endpoint) the payload hash stays in the signature.
 */
if (config.S3_ENDPOINT && isLoopback(config.S3_ENDPOINT)) {
  s3.middlewareStack.add(
    (next) => (args) => {
      const request = args.request as { headers?: Record<string, string>; body?: unknown };
      if (request.headers && ArrayBuffer.isView(request.body)) request.headers['x-amz-content-sha256'] = 'UNSIGNED-PAYLOAD';
      return next(args);
    },
    { step: 'build', name: 'localUnsignedPayload' },
  );
}

function isLoopback(endpoint: string): boolean {
  const host = new URL(endpoint).hostname;
  return host === 'localhost' || host === '[::1]' || /^127\./.test(host);
}

export const bucket = config.BUCKET_NAME;
