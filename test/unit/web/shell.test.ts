import { describe, expect, it } from 'vitest';
import { commands } from '#lib/cli/commands.ts';
import { helpText, parseLine, renderOutput, words } from '#lib/web/shell.ts';

describe('browser terminal line reading (shared command definitions)', () => {
  it('splits words, keeping quoted spaces', () => {
    expect(words(`login bob -p "a b c" 'x y'`)).toEqual(['login', 'bob', '-p', 'a b c', 'x y']);
  });
  it('finds two-word commands first and reads options by their commander flags', () => {
    const p = parseLine('wallet create main --chain b --password=pw --json', commands)!;
    expect(p.def.name).toBe('wallet create');
    expect(p.args).toEqual(['main']);
    expect(p.opts).toMatchObject({ chain: 'b', password: 'pw' });
    expect(p.json).toBe(true);
    expect(parseLine('toolkit field add 2 -3', commands)!.args).toEqual(['add', '2', '-3']);
  });
  it('refuses unknown commands, unknown options and missing arguments', () => {
    expect(() => parseLine('nope', commands)).toThrow(/unknown command/);
    expect(() => parseLine('login bob --nope', commands)).toThrow(/unknown option/);
    expect(() => parseLine('register', commands)).toThrow(/missing username/); // (`login` alone lists the ways to sign in)
    expect(parseLine('   ', commands)).toBeNull();
  });
  it('lists every command in help and renders tables padded', () => {
    const help = helpText(commands);
    for (const d of commands) expect(help).toContain(d.name);
    const text = renderOutput({ data: [], table: { columns: ['id', 'name'], rows: [['1', 'a.txt']] } }, false);
    expect(text.split('\n')[1]).toBe('1   a.txt');
  });
});
