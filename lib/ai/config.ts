import * as z from 'zod';
import { config, readConfig } from '#lib/config.ts';

/** The assistant's settings, read and checked at cold start (docs/assistant.md). */
const schema = z
  .object({
    AI_BACKEND: z.enum(['retrieval', 'openai', 'bedrock']).default('retrieval'),
    /** An OpenAI-compatible server's base URL, up to `/v1` (llama.cpp, Ollama, vLLM, a hosted one). */
    AI_OPENAI_URL: z.url().optional(),
    AI_OPENAI_MODEL: z.string().min(1).optional(),
    /** Sent as a bearer token when set; never logged. */
    AI_OPENAI_API_KEY: z.string().optional(),
    AI_BEDROCK_MODEL_ID: z.string().min(1).optional(),
    AI_DAILY_TOKENS: z.coerce.number().int().positive().default(200_000),
    AI_MAX_TOOL_ROUNDS: z.coerce.number().int().min(0).max(8).default(4),
    AI_MODEL_TIMEOUT_MS: z.coerce.number().int().positive().default(25_000),
  })
  .superRefine((c, ctx) => {
    if (c.AI_BACKEND === 'openai' && (!c.AI_OPENAI_URL || !c.AI_OPENAI_MODEL))
      ctx.addIssue({ code: 'custom', path: ['AI_OPENAI_URL'], message: 'AI_BACKEND=openai needs AI_OPENAI_URL and AI_OPENAI_MODEL' });
    if (c.AI_BACKEND === 'bedrock' && !c.AI_BEDROCK_MODEL_ID)
      ctx.addIssue({ code: 'custom', path: ['AI_BEDROCK_MODEL_ID'], message: 'AI_BACKEND=bedrock needs AI_BEDROCK_MODEL_ID' });
  })
  // The API's own base URL, for the links in answers: the platform's (lib/config.ts).
  .transform((c) => ({ ...c, baseUrl: (config.PUBLIC_BASE_URL ?? 'http://localhost:3000').replace(/\/$/, '') }));

export type AiConfig = z.infer<typeof schema>;

export const readAiConfig = (env: NodeJS.ProcessEnv = process.env): AiConfig => readConfig(schema, env);

export const aiConfig: AiConfig = readAiConfig();
