import type { AiConfig } from '../config.ts';
import { docsIndex } from '../docs.ts';
import { BedrockBackend } from './bedrock.ts';
import { OpenAiBackend } from './openai.ts';
import type { Backend } from './port.ts';
import { RetrievalBackend } from './retrieval.ts';

/** The configured backend (AI_BACKEND); config.ts has checked that its settings are there. */
export function backendFor(cfg: AiConfig): Backend {
  if (cfg.AI_BACKEND === 'openai')
    return new OpenAiBackend(cfg.AI_OPENAI_URL!, cfg.AI_OPENAI_MODEL!, {
      apiKey: cfg.AI_OPENAI_API_KEY,
      maxRounds: cfg.AI_MAX_TOOL_ROUNDS,
      timeoutMs: cfg.AI_MODEL_TIMEOUT_MS,
    });
  if (cfg.AI_BACKEND === 'bedrock') return new BedrockBackend(cfg.AI_BEDROCK_MODEL_ID!, { maxRounds: cfg.AI_MAX_TOOL_ROUNDS });
  return new RetrievalBackend(docsIndex);
}
