import type { Context } from 'aws-lambda';
import type { Event, Result } from './middleware/state.ts';

/**
 * Streamed answers (server-sent events). API Gateway's HTTP API buffers every answer, so a
 * route marked `stream` is also served from a Lambda function URL in response-streaming mode
 * (`streamingHandler`), and the local emulator streams the same way. The handler runs the whole
 * usual stack (session, rate limit, CORS, headers) and returns its status and headers at once;
 * the body follows as the iterable it registered with `streamBody`. Where nothing streams
 * (API Gateway), `canStream` is false and the handler sends the body whole.
 */
const bodies = new WeakMap<Event, { body?: AsyncIterable<string> }>();

/** Called by a streaming transport before it invokes the handler. */
export const enableStreaming = (event: Event): void => void bodies.set(event, {});
export const canStream = (event: Event): boolean => bodies.has(event);
/** Called by the handler: the body that follows the headers. */
export function streamBody(event: Event, body: AsyncIterable<string>): void {
  const slot = bodies.get(event);
  if (!slot) throw new Error('streamBody without a streaming transport');
  slot.body = body;
}
export const streamedBodyOf = (event: Event): AsyncIterable<string> | undefined => bodies.get(event)?.body;

/** What Lambda's Node.js runtime provides to response-streaming functions (a global, only there). */
interface ResponseStream {
  write(chunk: string | Uint8Array): void;
  end(): void;
}
interface AwsLambdaGlobal {
  streamifyResponse(fn: (event: Event, stream: ResponseStream, context: Context) => Promise<void>): unknown;
  HttpResponseStream: { from(stream: ResponseStream, prelude: { statusCode: number; headers?: Record<string, string>; cookies?: string[] }): ResponseStream };
}

/**
 * The function-URL handler of a streaming route: `awslambda.streamifyResponse` around the
 * route's ordinary handler. Undefined outside Lambda (the global is the runtime's).
 */
export function streamingHandler(handler: (event: Event, context: Context) => Promise<Result>): unknown {
  // Other libraries put an `awslambda` object on the global outside Lambda too: look for the function itself.
  const aws = (globalThis as { awslambda?: Partial<AwsLambdaGlobal> }).awslambda;
  if (typeof aws?.streamifyResponse !== 'function' || !aws.HttpResponseStream) return undefined;
  const lambda = aws as AwsLambdaGlobal;
  return lambda.streamifyResponse(async (event, responseStream, context) => {
    enableStreaming(event);
    const result = await handler(event, context);
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(result.headers ?? {})) headers[k] = String(v);
    const out = lambda.HttpResponseStream.from(responseStream, { statusCode: result.statusCode ?? 200, headers, cookies: result.cookies });
    const body = streamedBodyOf(event);
    if (body) for await (const chunk of body) out.write(chunk);
    else if (result.body) out.write(result.isBase64Encoded ? Buffer.from(result.body, 'base64') : result.body);
    out.end();
  });
}
