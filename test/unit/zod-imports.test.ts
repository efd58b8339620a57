import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * Bundle size: `import { z } from 'zod'` binds zod's re-exported namespace object, which esbuild
 * cannot shake, so one such line puts all of zod (≈ 440 KB minified) into every function that
 * reaches it; `import * as z from 'zod'` is the same API and bundles only what is used (≈ 90 KB).
 */
const repo = join(import.meta.dirname, '..', '..');
/** Files allowed to keep the named import (none). */
const PENDING = new Set<string>([]);

function* sources(dir: string): Generator<string> {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) yield* sources(p);
    else if (e.name.endsWith('.ts')) yield p;
  }
}

describe('zod imports', () => {
  it('lib/ and functions/ import zod as a namespace', () => {
    const offenders = [...sources(join(repo, 'lib')), ...sources(join(repo, 'functions'))]
      .filter((f) => /import\s*\{[^}]*\bz\b[^}]*\}\s*from\s*'zod'/.test(readFileSync(f, 'utf8')))
      .map((f) => relative(repo, f))
      .filter((f) => !PENDING.has(f));
    expect(offenders).toEqual([]);
  });
});
