import type { Context } from 'aws-lambda';
import { afterEach, describe, expect, it } from 'vitest';
import type { Event, Result } from '#lib/http/endpoint.ts';
import { canStream, streamBody, streamingHandler } from '#lib/http/stream.ts';

/**
 * The function-URL wrapper with the Lambda runtime's `awslambda` global reproduced as the Node.js
 * runtime defines it (streamifyResponse marks the function; HttpResponseStream.from writes the
 * JSON prelude and eight zero bytes before the body).
 */
const written: (string | Uint8Array)[] = [];
const stream = { write: (c: string | Uint8Array) => void written.push(c), end: () => void written.push('<end>') };
function installRuntime() {
  (globalThis as Record<string, unknown>).awslambda = {
    streamifyResponse: (fn: unknown) => fn,
    HttpResponseStream: {
      from(s: typeof stream, prelude: unknown) {
        s.write(JSON.stringify(prelude));
        s.write(new Uint8Array(8));
        return s;
      },
    },
  };
}
afterEach(() => {
  delete (globalThis as Record<string, unknown>).awslambda;
  written.length = 0;
});

const event = () => ({ headers: {}, requestContext: { http: { method: 'POST' } } }) as unknown as Event;

describe('streamingHandler', () => {
  it('is undefined outside Lambda (no awslambda.streamifyResponse)', () => {
    expect(streamingHandler(async () => ({ statusCode: 200 }))).toBeUndefined();
    (globalThis as Record<string, unknown>).awslambda = { InvokeStore: {} }; // what other libraries leave there
    expect(streamingHandler(async () => ({ statusCode: 200 }))).toBeUndefined();
  });

  it("sends the handler's status, headers and cookies first, then each chunk of the registered body", async () => {
    installRuntime();
    const handler = async (e: Event): Promise<Result> => {
      expect(canStream(e)).toBe(true);
      streamBody(
        e,
        (async function* () {
          yield 'event: meta\ndata: {}\n\n';
          yield 'event: done\ndata: {}\n\n';
        })(),
      );
      return { statusCode: 200, headers: { 'content-type': 'text/event-stream' }, cookies: ['a=b'] };
    };
    const wrapped = streamingHandler(handler) as (e: Event, s: typeof stream, c: Context) => Promise<void>;
    await wrapped(event(), stream, {} as Context);
    expect(JSON.parse(written[0] as string)).toEqual({ statusCode: 200, headers: { 'content-type': 'text/event-stream' }, cookies: ['a=b'] });
    expect(written.slice(2)).toEqual(['event: meta\ndata: {}\n\n', 'event: done\ndata: {}\n\n', '<end>']);
  });

  it('an answer that is not streamed (an error) goes out whole', async () => {
    installRuntime();
    const wrapped = streamingHandler(async () => ({
      statusCode: 401,
      headers: { 'content-type': 'application/json' },
      body: '{"error":"UNAUTHENTICATED"}',
    })) as (e: Event, s: typeof stream, c: Context) => Promise<void>;
    await wrapped(event(), stream, {} as Context);
    expect(JSON.parse(written[0] as string).statusCode).toBe(401);
    expect(written.slice(2)).toEqual(['{"error":"UNAUTHENTICATED"}', '<end>']);
  });
});
