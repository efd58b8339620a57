import { expect } from 'vitest';
import type { HttpClient } from '../support/runtime.ts';

/** What the bridge tests share: an answer with its status checked, an error answer, and a record polled until it settles. */
export function ok(res: { status: number; json: unknown }, status = 200) {
  expect(res.status, JSON.stringify(res.json)).toBe(status);
  return res.json as Record<string, any>;
}

export function fails(res: { status: number; json: any }, status: number, error: string, message?: RegExp) {
  expect(res.status, JSON.stringify(res.json)).toBe(status);
  expect(res.json).toEqual({ error, message: message ? expect.stringMatching(message) : expect.any(String) });
}

export const TERMINAL = ['completed', 'failed', 'expired', 'cancelled'] as const;

/** Polls the status until it reaches one of `until` (the tests' relayer runs every 200 ms): about 40 s at most. */
export async function settled(c: HttpClient, id: string, until: readonly string[] = TERMINAL) {
  for (let i = 0; i < 400; i++) {
    const t = ok(await c.get(`/api/bridge/status/${id}`)).transaction;
    if (until.includes(t.status)) return t;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`bridge ${id} did not settle`);
}
