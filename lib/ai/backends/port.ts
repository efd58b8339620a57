import type { ChatEvent } from '../events.ts';
import type { ToolResult } from '../tools.ts';

/** What every backend gets: the message, the conversation so far, and tools already scoped to the caller. */
export interface BackendRequest {
  message: string;
  history: { role: 'user' | 'assistant'; content: string }[];
  /** Runs a read-only tool for the caller (the service decides who the caller is). */
  callTool(name: string, args: unknown): Promise<ToolResult & { name: string }>;
  /** Whether this deployment serves a route (tasks of groups not built yet are reported as such). */
  hasRoute(method: string, path: string): boolean;
  baseUrl: string;
}

/** A backend's answer: the chat events between `meta` and `done`, and what it used. */
export type BackendEvent =
  | Exclude<ChatEvent, { type: 'meta' } | { type: 'done' } | { type: 'error' }>
  | { type: 'usage'; inputTokens: number; outputTokens: number };

export interface Backend {
  readonly name: 'retrieval' | 'openai' | 'bedrock';
  readonly model: string;
  /** Whether the backend can answer now (a model server that does not answer is unavailable). */
  available(): Promise<boolean>;
  answer(req: BackendRequest): AsyncIterable<BackendEvent>;
}

/** Tokens as the budget counts them when a backend reports none: about four characters each. */
export const estimateTokens = (text: string): number => Math.ceil(text.length / 4);
