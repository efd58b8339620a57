/**
 * The assistant's answer as events, in this order: `meta` first; then `delta`, `citation`,
 * `tool` and `suggestion` as they come; `done` (or `error`) last. Over SSE each is one
 * `event: <type>` / `data: <json>` block; with `Accept: application/json` they are folded into
 * one object (answerOf).
 */
export interface Citation {
  document: string;
  section: string;
  link: string;
}
export interface ToolCall {
  name: string;
  summary: string;
  /** The tool's result: the caller's own records, passed as data and never as instructions. */
  data?: unknown;
  untrusted: true;
}
export interface Usage {
  inputTokens: number;
  outputTokens: number;
}

export type ChatEvent =
  | { type: 'meta'; conversationId: string; messageId: string; backend: string; model: string }
  | { type: 'delta'; text: string }
  | { type: 'citation'; citation: Citation }
  | { type: 'tool'; tool: ToolCall }
  | { type: 'suggestion'; command: string; description: string }
  | { type: 'done'; usage: Usage }
  | { type: 'error'; error: string; message: string };

/** One server-sent event: the type line, the JSON data line (JSON never holds a raw newline), a blank line. */
export function sseFrame(e: ChatEvent): string {
  const { type, ...data } = e;
  return `event: ${type}\ndata: ${JSON.stringify(data)}\n\n`;
}

export interface Answer {
  conversationId: string;
  messageId: string;
  backend: string;
  model: string;
  text: string;
  citations: Citation[];
  tools: ToolCall[];
  suggestions: { command: string; description: string }[];
  usage?: Usage;
  error?: { error: string; message: string };
}

/** The events folded into the JSON answer. */
export async function answerOf(events: AsyncIterable<ChatEvent>): Promise<Answer> {
  const a: Answer = { conversationId: '', messageId: '', backend: '', model: '', text: '', citations: [], tools: [], suggestions: [] };
  for await (const e of events) {
    if (e.type === 'meta') Object.assign(a, { conversationId: e.conversationId, messageId: e.messageId, backend: e.backend, model: e.model });
    else if (e.type === 'delta') a.text += e.text;
    else if (e.type === 'citation') a.citations.push(e.citation);
    else if (e.type === 'tool') a.tools.push(e.tool);
    else if (e.type === 'suggestion') a.suggestions.push({ command: e.command, description: e.description });
    else if (e.type === 'done') a.usage = e.usage;
    else a.error = { error: e.error, message: e.message };
  }
  return a;
}

export async function* sseOf(events: AsyncIterable<ChatEvent>): AsyncIterable<string> {
  for await (const e of events) yield sseFrame(e);
}
