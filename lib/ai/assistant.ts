import { randomUUID } from 'node:crypto';
import * as z from 'zod';
import { clock } from '#lib/clock.ts';
import * as store from '#lib/data/ai-conversations.ts';
import { AppError, errors, isDependencyFailure } from '#lib/errors.ts';
import type { Route } from '#lib/http/route.ts';
import { logger } from '#lib/log.ts';
import { backendFor } from './backends/index.ts';
import { estimateTokens, type Backend } from './backends/port.ts';
import { isSafeCommand } from './commands.ts';
import { aiConfig, type AiConfig } from './config.ts';
import type { ChatEvent, Citation, ToolCall, Usage } from './events.ts';
import { callTool } from './tools.ts';

export const MAX_MESSAGE_CHARS = 4000;
/** Earlier turns given to a model backend (the retrieval backend answers each message on its own). */
const HISTORY_TURNS = 12;

// ---- the routes' inputs and answers ---------------------------------------------------------

export const chatInput = z.object({
  message: z.string().trim().min(1).max(MAX_MESSAGE_CHARS),
  conversationId: z.uuid().optional(),
});
export const conversationParams = z.object({ id: z.string().min(1).max(64) });
export const feedbackInput = z.object({
  conversationId: z.uuid(),
  messageId: z.uuid(),
  rating: z.enum(['up', 'down']),
  comment: z.string().max(2000).optional(),
});

const citation = z.object({ document: z.string(), section: z.string(), link: z.string() });
const suggestion = z.object({ command: z.string(), description: z.string() });
const toolCall = z.object({ name: z.string(), summary: z.string(), data: z.unknown().optional(), untrusted: z.literal(true) });
export const answerSchema = z.object({
  conversationId: z.string(),
  messageId: z.string(),
  backend: z.string(),
  model: z.string(),
  text: z.string(),
  citations: z.array(citation),
  tools: z.array(toolCall),
  suggestions: z.array(suggestion),
  usage: z.object({ inputTokens: z.number(), outputTokens: z.number() }).optional(),
  error: z.object({ error: z.string(), message: z.string() }).optional(),
});
/** The stored conversation's fields, named one by one: a field added to the record is not answered by accident. */
const conversationSchema = store.conversationSchema.pick({ id: true, title: true, backend: true, createdAt: true, updatedAt: true, messageCount: true });
export const conversationsAnswer = z.object({ conversations: z.array(conversationSchema) });
export const conversationAnswer = z.object({
  conversation: conversationSchema,
  messages: z.array(
    z.object({
      id: z.string(),
      role: z.enum(['user', 'assistant']),
      content: z.string(),
      citations: z.array(citation).optional(),
      suggestions: z.array(suggestion).optional(),
      tools: z.array(z.object({ name: z.string(), summary: z.string() })).optional(),
      createdAt: z.string(),
    }),
  ),
});
export const deletedAnswer = z.object({ deleted: z.literal(true) });
export const feedbackAnswer = z.object({ recorded: z.literal(true) });
export const statusAnswer = z.object({ backend: z.string(), model: z.string(), available: z.boolean(), dailyTokens: z.number(), maxMessageChars: z.number() });

// ---- the service ----------------------------------------------------------------------------

const secondsToUtcMidnight = (): number => {
  const now = clock.nowMs();
  return Math.max(1, Math.ceil((Math.ceil(now / 86_400_000) * 86_400_000 - now) / 1000));
};
const today = () => clock.now().toISOString().slice(0, 10);

function describeFailure(e: unknown): { error: string; message: string } {
  if (e instanceof AppError) return { error: e.code, message: e.message };
  if (isDependencyFailure(e)) return { error: 'SERVICE_UNAVAILABLE', message: 'a service this answer needs is unavailable; retry later' };
  return { error: 'INTERNAL', message: 'internal error' };
}

export class Assistant {
  constructor(
    private readonly routes: readonly Pick<Route, 'method' | 'path'>[],
    readonly backend: Backend,
    private readonly cfg: AiConfig,
  ) {}

  private hasRoute = (method: string, path: string) => this.routes.some((r) => r.method === method && r.path === path);

  /**
   * Checks what answers with an HTTP status (the conversation is the caller's, the day's budget
   * is not spent) before anything is streamed, then returns the answer's events.
   */
  async chat(userId: string, input: z.infer<typeof chatInput>): Promise<AsyncIterable<ChatEvent>> {
    const existing = input.conversationId ? await store.getConversation(userId, input.conversationId) : undefined;
    if (input.conversationId && !existing) throw errors.notFound('conversation not found');
    const inputTokens = estimateTokens(input.message);
    if (!(await store.spendTokens(userId, today(), inputTokens, this.cfg.AI_DAILY_TOKENS))) throw errors.aiBudgetSpent(secondsToUtcMidnight());
    const history = existing ? (await store.listMessages(userId, existing.id)).slice(-HISTORY_TURNS).map((m) => ({ role: m.role, content: m.content })) : [];
    return this.events(userId, input.message, existing?.id ?? randomUUID(), history, inputTokens);
  }

  private async *events(
    userId: string,
    message: string,
    conversationId: string,
    history: { role: 'user' | 'assistant'; content: string }[],
    inputTokens: number,
  ): AsyncIterable<ChatEvent> {
    const messageId = randomUUID();
    const askedAt = clock.now().toISOString();
    yield { type: 'meta', conversationId, messageId, backend: this.backend.name, model: this.backend.model };
    let text = '';
    const citations: Citation[] = [];
    const suggestions: { command: string; description: string }[] = [];
    const tools: ToolCall[] = [];
    let usage: Usage = { inputTokens, outputTokens: 0 };
    let failure: { error: string; message: string } | undefined;
    try {
      const answer = this.backend.answer({
        message,
        history,
        baseUrl: this.cfg.baseUrl,
        hasRoute: this.hasRoute,
        callTool: (name, args) => callTool({ userId }, name, args),
      });
      for await (const e of answer) {
        if (e.type === 'usage') {
          usage = { inputTokens: Math.max(inputTokens, e.inputTokens), outputTokens: e.outputTokens };
          continue;
        }
        if (e.type === 'suggestion') {
          if (!isSafeCommand(e.command, this.cfg.baseUrl) || suggestions.some((s) => s.command === e.command)) continue;
          suggestions.push({ command: e.command, description: e.description });
        } else if (e.type === 'delta') text += e.text;
        else if (e.type === 'citation') citations.push(e.citation);
        else tools.push(e.tool);
        yield e;
      }
    } catch (e) {
      failure = describeFailure(e);
      if (failure.error === 'INTERNAL') logger.error('assistant answer failed', { error: e as Error });
      else logger.warn('assistant answer failed', { code: failure.error });
    }
    if (!usage.outputTokens) usage.outputTokens = estimateTokens(text);
    try {
      // Independent writes: in parallel, so `done` follows the last delta closely.
      await Promise.all([
        store.putMessage(userId, { id: randomUUID(), conversationId, role: 'user', content: message, createdAt: askedAt }),
        store.putMessage(userId, {
          id: messageId,
          conversationId,
          role: 'assistant',
          content: text,
          citations,
          suggestions,
          tools: tools.map((t) => ({ name: t.name, summary: t.summary })),
          createdAt: new Date(Math.max(clock.nowMs(), Date.parse(askedAt) + 1)).toISOString(),
        }),
        store.touchConversation(userId, { id: conversationId, title: message.slice(0, 80), backend: this.backend.name }),
        store.spendTokens(userId, today(), usage.outputTokens + (usage.inputTokens - inputTokens), Number.MAX_SAFE_INTEGER),
      ]);
    } catch (e) {
      failure ??= describeFailure(e);
    }
    if (failure) yield { type: 'error', ...failure };
    else yield { type: 'done', usage };
  }

  listConversations = async (userId: string) => ({ conversations: await store.listConversations(userId) });

  async conversation(userId: string, id: string) {
    const conversation = await store.getConversation(userId, id);
    if (!conversation) throw errors.notFound('conversation not found');
    const messages = (await store.listMessages(userId, id)).map(({ conversationId: _c, ...m }) => m);
    return { conversation, messages };
  }

  async deleteConversation(userId: string, id: string) {
    if (!(await store.deleteConversation(userId, id))) throw errors.notFound('conversation not found');
    return { deleted: true as const };
  }

  async feedback(userId: string, input: z.infer<typeof feedbackInput>) {
    const messages = (await store.getConversation(userId, input.conversationId)) ? await store.listMessages(userId, input.conversationId) : [];
    if (!messages.some((m) => m.id === input.messageId && m.role === 'assistant')) throw errors.notFound('message not found');
    await store.putFeedback(userId, input);
    return { recorded: true as const };
  }

  async status() {
    let available = false;
    try {
      available = await this.backend.available();
    } catch {
      available = false;
    }
    return { backend: this.backend.name, model: this.backend.model, available, dailyTokens: this.cfg.AI_DAILY_TOKENS, maxMessageChars: MAX_MESSAGE_CHARS };
  }
}

/** The assistant of this deployment: the configured backend over the given route table. */
export function createAssistant(routes: readonly Pick<Route, 'method' | 'path'>[], cfg: AiConfig = aiConfig): Assistant {
  return new Assistant(routes, backendFor(cfg), cfg);
}
