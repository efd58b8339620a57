import {
  BedrockRuntimeClient,
  ConverseStreamCommand,
  type ContentBlock,
  type ConverseStreamOutput,
  type Message,
  type Tool,
} from '@aws-sdk/client-bedrock-runtime';
import { errors, isDependencyFailure } from '#lib/errors.ts';
import { parseArguments, runToolCall, systemPrompt, toolSpecs } from './model-prompt.ts';
import { estimateTokens, type Backend, type BackendEvent, type BackendRequest } from './port.ts';

/** The part of the Bedrock client this backend uses (tests hand in a recorded event stream). */
export interface ConverseStreamClient {
  send(command: ConverseStreamCommand): Promise<{ stream?: AsyncIterable<ConverseStreamOutput> }>;
}

/**
 * Amazon Bedrock's ConverseStream with tool use: text streams as it comes; a `tool_use` stop
 * runs the requested tools for the caller and continues the conversation with their results,
 * up to `maxRounds` times. The function's role may invoke only the configured model (CDK).
 */
export class BedrockBackend implements Backend {
  readonly name = 'bedrock' as const;
  constructor(
    readonly model: string,
    private readonly opts: { maxRounds: number },
    private readonly client: ConverseStreamClient = new BedrockRuntimeClient({ maxAttempts: 2 }),
  ) {}

  async available(): Promise<boolean> {
    // No cheap read-only probe exists for a model's runtime: configured means available; a failure shows as an `error` event.
    return true;
  }

  async *answer(req: BackendRequest): AsyncIterable<BackendEvent> {
    const messages: Message[] = [
      ...req.history.map((m): Message => ({ role: m.role, content: [{ text: m.content }] })),
      { role: 'user', content: [{ text: req.message }] },
    ];
    const tools: Tool[] = toolSpecs().map((t) => ({ toolSpec: { name: t.name, description: t.description, inputSchema: { json: t.parameters as never } } }));
    let inputTokens = 0;
    let outputTokens = 0;
    for (let round = 0; ; round++) {
      const offerTools = round < this.opts.maxRounds;
      let out: { stream?: AsyncIterable<ConverseStreamOutput> };
      try {
        out = await this.client.send(
          new ConverseStreamCommand({
            modelId: this.model,
            system: [{ text: systemPrompt(req.baseUrl) }],
            messages: [...messages],
            ...(offerTools ? { toolConfig: { tools } } : {}),
          }),
        );
      } catch (e) {
        if (
          isDependencyFailure(e) ||
          (e instanceof Error && /Throttling|ServiceUnavailable|ModelNotReady|AccessDenied|ResourceNotFound|Validation/.test(e.name))
        ) {
          throw errors.providerUnavailable(`the model did not answer (${(e as Error).name})`);
        }
        throw e;
      }
      const content: ContentBlock[] = [];
      const toolUses = new Map<number, { toolUseId: string; name: string; input: string }>();
      let text = '';
      let stopReason: string | undefined;
      for await (const e of out.stream ?? []) {
        if (e.contentBlockStart?.start?.toolUse) {
          const { toolUseId = '', name = '' } = e.contentBlockStart.start.toolUse;
          toolUses.set(e.contentBlockStart.contentBlockIndex ?? 0, { toolUseId, name, input: '' });
        } else if (e.contentBlockDelta?.delta) {
          const d = e.contentBlockDelta.delta;
          if ('text' in d && d.text) {
            text += d.text;
            yield { type: 'delta', text: d.text };
          } else if ('toolUse' in d && d.toolUse?.input) {
            const use = toolUses.get(e.contentBlockDelta.contentBlockIndex ?? 0);
            if (use) use.input += d.toolUse.input;
          }
        } else if (e.messageStop) stopReason = e.messageStop.stopReason;
        else if (e.metadata?.usage) {
          inputTokens += e.metadata.usage.inputTokens ?? 0;
          outputTokens += e.metadata.usage.outputTokens ?? 0;
        } else if (
          e.internalServerException ||
          e.modelStreamErrorException ||
          e.throttlingException ||
          e.serviceUnavailableException ||
          e.validationException
        ) {
          throw errors.providerUnavailable('the model stream failed');
        }
      }
      if (stopReason !== 'tool_use' || !toolUses.size || !offerTools) {
        yield { type: 'usage', inputTokens: inputTokens || estimateTokens(req.message), outputTokens: outputTokens || estimateTokens(text) };
        return;
      }
      if (text) content.push({ text });
      const uses = [...toolUses.values()];
      for (const u of uses) content.push({ toolUse: { toolUseId: u.toolUseId, name: u.name, input: parseArguments(u.input) as never } });
      messages.push({ role: 'assistant', content });
      const results: ContentBlock[] = [];
      for (const u of uses) {
        const r = await runToolCall(req, u.name, parseArguments(u.input));
        yield* r.events;
        results.push({ toolResult: { toolUseId: u.toolUseId, content: [{ text: r.content }] } });
      }
      messages.push({ role: 'user', content: results });
    }
  }
}
