/**
 * The assistant's answer as it streams (`POST /api/ai/chat` with `Accept: text/event-stream`):
 * each server-sent event read off the body as it arrives, parsed into a ChatEvent. Behind a
 * gateway that buffers, the same events come at once; a server that answers JSON anyway is read
 * as one answer. WebCrypto/fetch only: the CLI and the browser terminal share it.
 */
import type { Answer, ChatEvent } from '#lib/ai/events.ts';
import { ShroudError, type ShroudClient } from './api.ts';

export type { Answer, ChatEvent } from '#lib/ai/events.ts';

/** One `event:`/`data:` block; null for a comment, a keep-alive or an event this client does not know. */
function parseFrame(frame: string): ChatEvent | null {
  let type = 'message';
  const data: string[] = [];
  for (const line of frame.split(/\r?\n/)) {
    if (line.startsWith('event:')) type = line.slice(6).trim();
    else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
  }
  if (!data.length) return null;
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(data.join('\n')) as Record<string, unknown>;
  } catch {
    throw new ShroudError('BAD_STREAM', 502, `the assistant sent an unreadable ${type} event`);
  }
  const known = ['meta', 'delta', 'citation', 'tool', 'suggestion', 'done', 'error'];
  return known.includes(type) ? ({ type, ...body } as ChatEvent) : null;
}

/** The events of one answer, as they arrive. */
export async function* chatEvents(client: ShroudClient, body: { message: string; conversationId?: string }, signal?: AbortSignal): AsyncGenerator<ChatEvent> {
  const res = await client.open('aiChat', { body }, { headers: { accept: 'text/event-stream' }, signal });
  if (!(res.headers.get('content-type') ?? '').includes('text/event-stream')) {
    const a = (await res.json()) as Answer & { success?: boolean };
    yield { type: 'meta', conversationId: a.conversationId, messageId: a.messageId, backend: a.backend, model: a.model };
    if (a.text) yield { type: 'delta', text: a.text };
    for (const tool of a.tools ?? []) yield { type: 'tool', tool };
    for (const citation of a.citations ?? []) yield { type: 'citation', citation };
    for (const s of a.suggestions ?? []) yield { type: 'suggestion', ...s };
    yield a.error ? { type: 'error', ...a.error } : { type: 'done', usage: a.usage ?? { inputTokens: 0, outputTokens: 0 } };
    return;
  }
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (value) buffered += value;
      // Events end with a blank line.
      for (let end = buffered.search(/\r?\n\r?\n/); end >= 0; end = buffered.search(/\r?\n\r?\n/)) {
        const frame = buffered.slice(0, end);
        buffered = buffered.slice(end).replace(/^\r?\n\r?\n/, '');
        const event = parseFrame(frame);
        if (event) yield event;
      }
      if (done) break;
    }
    const last = buffered.trim() ? parseFrame(buffered) : null;
    if (last) yield last;
  } finally {
    reader.releaseLock();
  }
}
