import { expect } from 'vitest';
import { AppError } from '#lib/errors.ts';

/** Runs `fn` and asserts it throws (or rejects with) an AppError of `code` whose message contains `message`. */
export async function expectAppError(fn: () => unknown, code: string, message?: string | RegExp): Promise<AppError> {
  let caught: unknown;
  try {
    await fn();
  } catch (e) {
    caught = e;
  }
  expect(caught, `expected ${code}`).toBeInstanceOf(AppError);
  const e = caught as AppError;
  expect(e.code).toBe(code);
  expect(e.status).toBe(400);
  if (message !== undefined) {
    if (typeof message === 'string') expect(e.message).toContain(message);
    else expect(e.message).toMatch(message);
  }
  return e;
}
