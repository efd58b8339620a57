import { readFileSync, writeFileSync } from 'node:fs';
import { expect } from 'vitest';

/**
 * A generated file that is committed (the docs index, the L1 contracts' ABI and bytecode): when
 * it differs from `fresh`, it is rewritten and the test fails, so the change gets committed.
 */
export function expectGeneratedFile(target: string, fresh: string, message: string): void {
  let current = '';
  try {
    current = readFileSync(target, 'utf8');
  } catch {
    // missing: written below
  }
  if (current !== fresh) writeFileSync(target, fresh);
  expect(current === fresh, message).toBe(true);
}
