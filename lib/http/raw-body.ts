import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type { Readable } from 'node:stream';

/**
 * The local runtime attaches the request's bytes under this symbol so that a 100 MB upload is
 * held once, not again as a base64 string; on Lambda the body is the event's (base64) string.
 */
export const RAW_BODY = Symbol.for('shroud.rawBody');

/**
 * Local only: on a route marked `streamRequest`, the emulator hands over a multipart body as the
 * request stream itself, still arriving, instead of the whole body in the event (see
 * lib/local/gateway.ts). Lambda never does this: there the body is in the event, at most 6 MB.
 */
export const RAW_BODY_STREAM = Symbol.for('shroud.rawBodyStream');

export function rawBodyOf(event: APIGatewayProxyEventV2): Buffer {
  const attached = (event as unknown as Record<symbol, Buffer | undefined>)[RAW_BODY];
  if (attached) return attached;
  if ((event as unknown as Record<symbol, unknown>)[RAW_BODY_STREAM]) throw new Error('the body of this request is streamed: read it with requestBodyOf');
  if (!event.body) return Buffer.alloc(0);
  return Buffer.from(event.body, event.isBase64Encoded ? 'base64' : 'utf8');
}

/** The body as a handler that can stream reads it: the emulator's stream when there is one, else the bytes. */
export function requestBodyOf(event: APIGatewayProxyEventV2): Buffer | Readable {
  return (event as unknown as Record<symbol, Readable | undefined>)[RAW_BODY_STREAM] ?? rawBodyOf(event);
}
