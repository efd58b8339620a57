/**
 * docs/cli.md, the CLI reference, against the command definitions (lib/cli/commands.ts): every
 * command has its section with every one of its long options, and the page names no command
 * that does not exist. No server: a new command or option without its documentation fails here.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commands } from '#lib/cli/commands.ts';

const page = readFileSync(join(import.meta.dirname, '..', '..', '..', 'docs', 'cli.md'), 'utf8');
/** The text of each `### \`shroud …\`` section, by command name. */
const sections = new Map([...page.matchAll(/^### `shroud ([^`]+)`\n([\s\S]*?)(?=^##)/gm)].map((m) => [m[1]!, m[2]!] as const));
const setup = ['config set-url', 'config show', 'completion'];

describe('docs/cli.md', () => {
  it('has a section for every command, with its usage line, every long option and an example', () => {
    for (const c of commands) {
      const text = sections.get(c.name);
      expect(text, `no section for shroud ${c.name}`).toBeDefined();
      expect(text, c.name).toContain(`shroud ${c.name}`);
      expect(text, c.name).toMatch(/Example:/);
      for (const o of c.options ?? []) expect(text, `${c.name} ${o.flags}`).toContain(/--[a-z][a-z-]*/.exec(o.flags)![0]);
      for (const a of c.args ?? []) expect(text, `${c.name} <${a.name}>`).toContain(`\`${a.name}\``);
    }
  });

  it('documents no command that does not exist', () => {
    const known = new Set([...commands.map((c) => c.name), ...setup]);
    expect([...sections.keys()].filter((n) => !known.has(n))).toEqual([]);
  });
});
