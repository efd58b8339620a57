import type { APIGatewayProxyEventV2 } from 'aws-lambda';

/**
 * The local runtime attaches the request's bytes under this symbol so that a 100 MB upload is
 * held once, not again as a base64 string; on Lambda the body is the event's (base64) string.
 */
export const RAW_BODY = Symbol.for('shroud.rawBody');

export function rawBodyOf(event: APIGatewayProxyEventV2): Buffer {
  const attached = (event as unknown as Record<symbol, Buffer | undefined>)[RAW_BODY];
  if (attached) return attached;
  if (!event.body) return Buffer.alloc(0);
  return Buffer.from(event.body, event.isBase64Encoded ? 'base64' : 'utf8');
}
