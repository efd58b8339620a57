import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * Every environment variable a config.ts reads (lib/config.ts and each lib/<domain>/config.ts,
 * the zod schemas checked at cold start) is documented: in docs/operations.md's table or on its
 * domain's page.
 */
const root = join(import.meta.dirname, '..', '..', '..');

function configFiles(dir: string): string[] {
  return readdirSync(join(root, dir)).flatMap((f) => {
    const p = `${dir}/${f}`;
    if (statSync(join(root, p)).isDirectory()) return configFiles(p);
    return f === 'config.ts' ? [p] : [];
  });
}

describe('the configuration', () => {
  it('every variable a config.ts reads is documented in README.md or docs/', () => {
    const docs = [
      'README.md',
      ...readdirSync(join(root, 'docs'))
        .filter((f) => f.endsWith('.md'))
        .map((f) => `docs/${f}`),
    ]
      .map((f) => readFileSync(join(root, f), 'utf8'))
      .join('\n');
    const files = configFiles('lib');
    expect(files.length).toBeGreaterThan(5);
    const missing: string[] = [];
    for (const file of files) {
      // The schemas' keys: `NAME: z.…` (an upper-case key is an environment variable).
      for (const [, name] of readFileSync(join(root, file), 'utf8').matchAll(/^\s+([A-Z][A-Z0-9_]{2,}):/gm)) {
        if (!docs.includes(`\`${name}\``)) missing.push(`${name} (${file})`);
      }
    }
    expect(missing).toEqual([]);
  });
});
