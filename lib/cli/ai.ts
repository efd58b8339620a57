/**
 * The assistant (functions/ai): `ask` streams the answer (lib/client/assistant.ts); its suggested
 * commands are printed to type, never run. Conversations are listed, shown and deleted; an answer
 * can be rated.
 */
import { ShroudError } from '#lib/client/api.ts';
import { chatEvents, type Answer as AssistantAnswer } from '#lib/client/assistant.ts';
import type { CommandDef } from './framework.ts';
import { need, str, usage } from './shared.ts';

export const aiCommands: CommandDef[] = [
  {
    name: 'ask',
    summary: 'ask the assistant (answers stream in; its suggestions are printed for you to type, never run)',
    args: [{ name: 'question', description: 'your question, quoted', variadic: true }],
    options: [{ flags: '-c, --conversation <id>', description: 'continue a conversation' }],
    async run(ctx) {
      const message = need(ctx.args.join(' ').trim() || undefined, 'question');
      const conversationId = str(ctx.opts.conversation);
      const a: AssistantAnswer = { conversationId: '', messageId: '', backend: '', model: '', text: '', citations: [], tools: [], suggestions: [] };
      for await (const e of chatEvents(ctx.client, { message, ...(conversationId ? { conversationId } : {}) })) {
        if (e.type === 'meta') Object.assign(a, { conversationId: e.conversationId, messageId: e.messageId, backend: e.backend, model: e.model });
        else if (e.type === 'delta') {
          a.text += e.text;
          ctx.io.stream?.(e.text);
        } else if (e.type === 'citation') a.citations.push(e.citation);
        else if (e.type === 'tool') a.tools.push(e.tool);
        else if (e.type === 'suggestion') a.suggestions.push({ command: e.command, description: e.description });
        else if (e.type === 'done') a.usage = e.usage;
        else a.error = { error: e.error, message: e.message };
      }
      if (a.error) throw new ShroudError(a.error.error, 502, a.error.message);
      const after: string[] = [];
      if (a.citations.length) after.push('', 'sources:', ...a.citations.map((c) => `  ${c.document} — ${c.section}`));
      if (a.suggestions.length) after.push('', 'to do it, type (nothing was run):', ...a.suggestions.map((x) => `  $ ${x.command}\n      ${x.description}`));
      after.push('', `conversation ${a.conversationId} (continue: shroud ask -c ${a.conversationId} "…")`);
      // Streamed: the text is on the screen already; what follows starts on a line of its own.
      return { data: a, text: ctx.io.stream ? `\n${after.join('\n')}` : [a.text, ...after].join('\n') };
    },
  },
  {
    name: 'conversations',
    summary: 'your conversations with the assistant, newest first',
    async run(ctx) {
      const { conversations } = await ctx.client.api.aiConversations();
      return {
        data: conversations,
        table: {
          columns: ['id', 'title', 'messages', 'updated'],
          rows: conversations.map((c) => [c.id, c.title, c.messageCount, c.updatedAt.slice(0, 19).replace('T', ' ')]),
        },
        empty: 'no conversations yet: `shroud ask "…"`',
      };
    },
  },
  {
    name: 'conversations show',
    summary: 'a conversation with the assistant, message by message',
    args: [{ name: 'id', description: 'the conversation id (`shroud conversations`)' }],
    async run(ctx) {
      const out = await ctx.client.api.aiConversation({ params: { id: need(ctx.args[0], 'id') } });
      const lines = [`${out.conversation.title} (${out.conversation.id})`, ''];
      for (const m of out.messages) {
        lines.push(`${m.role === 'user' ? 'you' : 'assistant'} · ${m.createdAt.slice(0, 19).replace('T', ' ')} · ${m.id}`, m.content);
        for (const s of m.suggestions ?? []) lines.push(`  $ ${s.command}`);
        lines.push('');
      }
      lines.push(`continue: shroud ask -c ${out.conversation.id} "…"`);
      return { data: out, text: lines.join('\n') };
    },
  },
  {
    name: 'conversations rm',
    summary: 'delete a conversation with the assistant',
    args: [{ name: 'id', description: 'the conversation id (`shroud conversations`)' }],
    async run(ctx) {
      const out = await ctx.client.api.aiDeleteConversation({ params: { id: need(ctx.args[0], 'id') } });
      return { data: out, text: `deleted ${ctx.args[0]}` };
    },
  },
  {
    name: 'feedback',
    summary: 'rate an answer of the assistant: up or down, with a comment if you like',
    args: [
      { name: 'rating', description: 'up | down' },
      { name: 'conversation', description: 'the conversation id (printed after each answer)' },
      { name: 'message', description: "the answer's message id (`shroud conversations show <id>`; `ask --json` prints it)" },
    ],
    options: [{ flags: '--comment <text>', description: 'what was right or wrong' }],
    async run(ctx) {
      const rating = need(ctx.args[0], 'rating');
      if (rating !== 'up' && rating !== 'down') throw usage('rating: up or down');
      const comment = str(ctx.opts.comment);
      const out = await ctx.client.api.aiFeedback({
        body: { rating, conversationId: need(ctx.args[1], 'conversation'), messageId: need(ctx.args[2], 'message'), ...(comment ? { comment } : {}) },
      });
      return { data: out, text: `recorded: ${rating}` };
    },
  },
];
