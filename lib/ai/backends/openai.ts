import { errors } from '#lib/errors.ts';
import { estimateTokens, type Backend, type BackendEvent, type BackendRequest } from './port.ts';
import { parseArguments, runToolCall, systemPrompt, toolSpecs } from './model-prompt.ts';

/**
 * Any OpenAI-compatible chat-completions server (llama.cpp, Ollama, vLLM, a hosted one),
 * streamed, with tool calls: the model asks for tools, the service runs them for the caller and
 * sends the results back, up to `maxRounds` times.
 */
type Message =
  | { role: 'system' | 'user' | 'assistant'; content: string | null; tool_calls?: ToolCallOut[] }
  | { role: 'tool'; tool_call_id: string; content: string };
interface ToolCallOut {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}
interface Chunk {
  choices?: {
    delta?: { content?: string | null; tool_calls?: { index: number; id?: string; function?: { name?: string; arguments?: string } }[] };
    finish_reason?: string | null;
  }[];
  usage?: { prompt_tokens?: number; completion_tokens?: number } | null;
}

/** `data:` payloads of a server-sent event stream. */
async function* sseData(body: ReadableStream<Uint8Array>): AsyncIterable<string> {
  const decoder = new TextDecoder();
  const reader = body.getReader();
  let buffer = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let cut: number;
    while ((cut = buffer.search(/\r?\n\r?\n/)) >= 0) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut).replace(/^\r?\n\r?\n/, '');
      const data = block
        .split(/\r?\n/)
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5).replace(/^ /, ''))
        .join('\n');
      if (data) yield data;
    }
  }
}

export class OpenAiBackend implements Backend {
  readonly name = 'openai' as const;
  constructor(
    private readonly url: string,
    readonly model: string,
    private readonly opts: { apiKey?: string; maxRounds: number; timeoutMs: number },
  ) {}

  private headers(): Record<string, string> {
    return { 'content-type': 'application/json', ...(this.opts.apiKey ? { authorization: `Bearer ${this.opts.apiKey}` } : {}) };
  }

  async available(): Promise<boolean> {
    const res = await fetch(`${this.url.replace(/\/$/, '')}/models`, { headers: this.headers(), signal: AbortSignal.timeout(2000) }).catch(() => undefined);
    return !!res?.ok;
  }

  async *answer(req: BackendRequest): AsyncIterable<BackendEvent> {
    const messages: Message[] = [
      { role: 'system', content: systemPrompt(req.baseUrl) },
      ...req.history.map((m) => ({ role: m.role, content: m.content })),
      { role: 'user', content: req.message },
    ];
    const tools = toolSpecs().map((t) => ({ type: 'function' as const, function: t }));
    let inputTokens = 0;
    let outputTokens = 0;
    for (let round = 0; ; round++) {
      const offerTools = round < this.opts.maxRounds;
      const res = await fetch(`${this.url.replace(/\/$/, '')}/chat/completions`, {
        method: 'POST',
        headers: this.headers(),
        body: JSON.stringify({ model: this.model, messages, stream: true, stream_options: { include_usage: true }, ...(offerTools ? { tools } : {}) }),
        signal: AbortSignal.timeout(this.opts.timeoutMs),
      }).catch((e: unknown) => {
        throw errors.providerUnavailable(`the model server did not answer (${(e as Error).name})`);
      });
      if (!res.ok || !res.body) throw errors.providerUnavailable(`the model server answered ${res.status}`);
      const calls: ToolCallOut[] = [];
      let text = '';
      for await (const data of sseData(res.body)) {
        if (data.trim() === '[DONE]') break;
        let chunk: Chunk;
        try {
          chunk = JSON.parse(data) as Chunk;
        } catch {
          throw errors.providerUnavailable('the model server sent a malformed chunk');
        }
        if (chunk.usage) {
          inputTokens += chunk.usage.prompt_tokens ?? 0;
          outputTokens += chunk.usage.completion_tokens ?? 0;
        }
        const delta = chunk.choices?.[0]?.delta;
        if (delta?.content) {
          text += delta.content;
          yield { type: 'delta', text: delta.content };
        }
        for (const tc of delta?.tool_calls ?? []) {
          const call = (calls[tc.index] ??= { id: tc.id ?? `call_${tc.index}`, type: 'function', function: { name: '', arguments: '' } });
          if (tc.id) call.id = tc.id;
          if (tc.function?.name) call.function.name += tc.function.name;
          if (tc.function?.arguments) call.function.arguments += tc.function.arguments;
        }
      }
      const made = calls.filter(Boolean);
      if (!made.length || !offerTools) {
        yield { type: 'usage', inputTokens: inputTokens || estimateTokens(JSON.stringify(messages)), outputTokens: outputTokens || estimateTokens(text) };
        return;
      }
      messages.push({ role: 'assistant', content: text || null, tool_calls: made });
      for (const call of made) {
        const { events, content } = await runToolCall(req, call.function.name, parseArguments(call.function.arguments));
        yield* events;
        messages.push({ role: 'tool', tool_call_id: call.id, content });
      }
    }
  }
}
