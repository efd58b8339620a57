/**
 * lib/client/assistant.ts without a server: the SSE body arrives in pieces cut anywhere (inside a
 * frame, inside a UTF-8 character, CRLF line ends), and each event must come out as soon as its
 * frame is complete, before the body has ended.
 */
import { describe, expect, it } from 'vitest';
import { ShroudClient } from '#lib/client/api.ts';
import { chatEvents, type ChatEvent } from '#lib/client/assistant.ts';

const frame = (type: string, data: unknown, eol = '\n') => `event: ${type}${eol}data: ${JSON.stringify(data)}${eol}${eol}`;

/** A client whose fetch answers with a body we feed by hand; `push(undefined)` ends it. */
function scripted(contentType: string) {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const body = new ReadableStream<Uint8Array>({ start: (c) => void (controller = c) });
  const sent: { url: string; accept: string | null }[] = [];
  const client = new ShroudClient({
    baseUrl: 'http://api.test',
    fetch: (async (url: URL, init: RequestInit) => {
      sent.push({ url: String(url), accept: new Headers(init.headers).get('accept') });
      return new Response(body, { status: 200, headers: { 'content-type': contentType } });
    }) as typeof fetch,
  });
  const push = (bytes: Uint8Array | undefined) => (bytes ? controller.enqueue(bytes) : controller.close());
  return { client, push, sent };
}

describe('chatEvents', () => {
  it('yields each event as soon as its frame is complete, whatever the cuts', async () => {
    const { client, push, sent } = scripted('text/event-stream; charset=utf-8');
    const bytes = new TextEncoder().encode(
      frame('meta', { conversationId: 'c1', messageId: 'm1', backend: 'retrieval', model: 'bm25' }) +
        frame('delta', { text: 'héllo ' }, '\r\n') +
        ': keep-alive\n\n' +
        frame('delta', { text: 'wörld' }) +
        frame('unknown-kind', { x: 1 }) +
        frame('suggestion', { command: "curl -s 'http://api.test/api/x'", description: 'do x' }),
    );
    const events = chatEvents(client, { message: 'hi' });
    const seen: ChatEvent[] = [];
    // Feed 7 bytes at a time (cutting frames and the two-byte characters), and check progress before the end.
    const reading = (async () => {
      for await (const e of events) seen.push(e);
    })();
    for (let i = 0; i < bytes.length; i += 7) {
      push(bytes.subarray(i, i + 7));
      await new Promise((r) => setTimeout(r, 1));
    }
    await new Promise((r) => setTimeout(r, 5));
    expect(seen.map((e) => e.type)).toEqual(['meta', 'delta', 'delta', 'suggestion']); // all before the body ended
    push(new TextEncoder().encode(frame('done', { usage: { inputTokens: 3, outputTokens: 2 } }).slice(0, -1))); // last frame without its blank line
    push(undefined);
    await reading;
    expect(seen).toEqual([
      { type: 'meta', conversationId: 'c1', messageId: 'm1', backend: 'retrieval', model: 'bm25' },
      { type: 'delta', text: 'héllo ' },
      { type: 'delta', text: 'wörld' },
      { type: 'suggestion', command: "curl -s 'http://api.test/api/x'", description: 'do x' },
      { type: 'done', usage: { inputTokens: 3, outputTokens: 2 } },
    ]);
    expect(sent).toEqual([{ url: 'http://api.test/api/ai/chat', accept: 'text/event-stream' }]);
  });

  it('reads a JSON answer (a server that does not stream) as the same events', async () => {
    const { client, push } = scripted('application/json');
    push(
      new TextEncoder().encode(
        JSON.stringify({
          success: true,
          conversationId: 'c',
          messageId: 'm',
          backend: 'b',
          model: 'x',
          text: 'all at once',
          citations: [{ document: 'README.md', section: 'S', link: 'README.md#s' }],
          tools: [],
          suggestions: [],
          error: { error: 'PROVIDER_UNAVAILABLE', message: 'down' },
        }),
      ),
    );
    push(undefined);
    const seen: ChatEvent[] = [];
    for await (const e of chatEvents(client, { message: 'hi' })) seen.push(e);
    expect(seen.map((e) => e.type)).toEqual(['meta', 'delta', 'citation', 'error']);
    expect(seen.at(-1)).toEqual({ type: 'error', error: 'PROVIDER_UNAVAILABLE', message: 'down' });
  });

  it('refuses a frame whose data is not JSON', async () => {
    const { client, push } = scripted('text/event-stream');
    push(new TextEncoder().encode('event: delta\ndata: {not json\n\n'));
    push(undefined);
    await expect(async () => {
      for await (const _ of chatEvents(client, { message: 'hi' })) void _;
    }).rejects.toMatchObject({ code: 'BAD_STREAM' });
  });
});
