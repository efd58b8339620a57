import { Readable } from 'node:stream';
import type { GetObjectCommandOutput } from '@aws-sdk/client-s3';

/**
 * Typed adapters from the streams the SDKs hand out to the `AsyncIterable<Uint8Array>` the
 * storage pipeline reads, chunk by chunk (never buffering the whole object).
 */

/** A WHATWG stream (a fetch body, the SDK's web stream), read through its reader. */
export async function* webStreamChunks(stream: ReadableStream<Uint8Array>): AsyncGenerator<Uint8Array> {
  const reader = stream.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield value;
    }
  } finally {
    reader.releaseLock();
  }
}

/** A Node stream, which yields Buffers (Uint8Arrays) unless an encoding was set on it. */
async function* nodeStreamChunks(stream: Readable): AsyncGenerator<Uint8Array> {
  for await (const chunk of stream) {
    if (!(chunk instanceof Uint8Array)) throw new TypeError('expected a byte stream, got text chunks');
    yield chunk;
  }
}

/** The body of a GetObject: on Node the SDK returns its Readable; elsewhere its web stream. */
export function s3BodyChunks(body: GetObjectCommandOutput['Body']): AsyncIterable<Uint8Array> {
  if (!body) throw new Error('S3 returned an object without a body');
  if (body instanceof Readable) return nodeStreamChunks(body);
  return webStreamChunks(body.transformToWebStream());
}
