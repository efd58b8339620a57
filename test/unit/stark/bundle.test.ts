// The test-only adversary must not ship: neither the STARK sources nor the deployed bundles of the
// /api/zkauth routes that prove and verify contain its marker or its hooks.
import { describe, it, expect } from 'vitest';
import { build } from 'esbuild';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { esbuildOptions } from '../../../cdk/bundling.ts';

const repo = join(import.meta.dirname, '..', '..', '..');
const MARKERS = ['forgeOod', 'TEST-ONLY ADVERSARY', 'adversary.ts'];

describe('production code carries no test adversary', () => {
  it('no file under lib/ mentions it', () => {
    const hits: string[] = [];
    const walk = (dir: string) => {
      for (const e of readdirSync(dir, { withFileTypes: true })) {
        const p = join(dir, e.name);
        if (e.isDirectory()) walk(p);
        else if (/\.(ts|js|mjs)$/.test(e.name) && MARKERS.some((m) => readFileSync(p, 'utf8').includes(m))) hits.push(p);
      }
    };
    walk(join(repo, 'lib'));
    expect(hits).toEqual([]);
  });

  // Each bundle really contains STARK code (a string only the prover / the verifier has), so the check is not vacuous.
  it.each([
    ['prove', 'prover: secret key'],
    ['refresh', 'prover: secret key'],
    ['verify', 'proof: trailing bytes'],
  ])(
    'the esbuild bundle of functions/zkauth/%s.ts does not contain it',
    async (route, present) => {
      const entry = join(repo, 'functions', 'zkauth', `${route}.ts`);
      const result = await build({ ...esbuildOptions(entry, `${route}.mjs`), write: false, minify: false });
      const code = result.outputFiles.map((f) => f.text).join('\n');
      expect(code.includes(present)).toBe(true);
      expect(MARKERS.filter((m) => code.includes(m))).toEqual([]);
    },
    120_000,
  );
});
