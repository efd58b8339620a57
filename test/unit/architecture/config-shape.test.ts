import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from './import-graph.ts';

/**
 * One shape for every config.ts (docs/architecture.md, the file shape of a domain: settings): a zod
 * `schema`, its type `<Name>Config`, the reader `read<Name>Config(env = process.env)` through
 * lib/config.ts's `readConfig`, and, where the settings are read at cold start, the constant.
 */
function configFiles(dir: string): string[] {
  return readdirSync(join(repoRoot, dir)).flatMap((f) => {
    const p = `${dir}/${f}`;
    if (statSync(join(repoRoot, p)).isDirectory()) return configFiles(p);
    return f === 'config.ts' ? [p] : [];
  });
}

describe('the config.ts files', () => {
  it('each exports its type and reader, reads the environment only through readConfig', () => {
    const files = configFiles('lib');
    expect(files.length).toBe(11);
    const wrong: string[] = [];
    for (const file of files) {
      const text = readFileSync(join(repoRoot, file), 'utf8');
      const reader = text.match(/export const read(\w+)Config = \(env: NodeJS\.ProcessEnv = process\.env\): (\w+)Config => readConfig\(\w+, env\);/);
      if (!reader || reader[1] !== reader[2]) {
        wrong.push(`${file}: no read<Name>Config(env = process.env): <Name>Config through readConfig`);
        continue;
      }
      if (!new RegExp(`export type ${reader[1]}Config = z\\.infer<typeof \\w+>;`).test(text)) wrong.push(`${file}: no type ${reader[1]}Config = z.infer<…>`);
      const direct = text.replace(/process\.env\)?[:;]/g, '').match(/process\.env\.\w+/g);
      if (direct) wrong.push(`${file}: reads ${direct.join(', ')} outside its schema`);
    }
    expect(wrong).toEqual([]);
  });
});
