import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isSafeCommand, isShroudLine, shroudCommand, shroudCommandName } from '#lib/ai/commands.ts';
import { commands } from '#lib/cli/commands.ts';
import { program } from '#lib/cli/main.ts';
import { golden } from './golden.ts';
import { curl, matchIntent } from '#lib/ai/intents.ts';
import { parseSlots } from '#lib/ai/slots.ts';
import { callTool } from '#lib/ai/tools.ts';

const BASE = 'http://localhost:3000';

describe('suggested commands', () => {
  it('allows curl and open against the API only, nothing a shell would run besides', () => {
    expect(isSafeCommand(`curl -s -b ~/.c -X POST '${BASE}/api/wallets' -H 'content-type: application/json' -d '{"name":"a b; rm -rf ~"}'`, BASE)).toBe(true);
    expect(isSafeCommand(`open '${BASE}/api/zkauth/login?provider=github'`, BASE)).toBe(true);
    for (const bad of [
      'rm -rf ~',
      `curl '${BASE}/api/x'; rm -rf ~`,
      `curl '${BASE}/api/x' | sh`,
      `curl '${BASE}/api/x' && reboot`,
      `curl '${BASE}/api/x' $(whoami)`,
      `curl '${BASE}/api/x' \`id\``,
      `curl '${BASE}/api/x' > ~/.bashrc`,
      `curl 'https://evil.example/api/x'`,
      `curl '${BASE}/api/x' 'https://evil.example/'`,
      `curl '${BASE}/api/x`,
      `curl ${BASE}/api/x`,
      `curl '${BASE}/api/../../x'`,
      `curl '${BASE}/api/x'\nrm -rf ~`,
    ])
      expect(isSafeCommand(bad, BASE), bad).toBe(false);
  });

  it('curl() refuses a value that could leave its quotes', () => {
    expect(() => curl(BASE, 'POST', '/api/x', { name: "it's" })).toThrow();
    expect(() => curl(BASE, 'POST', '/api/x', { name: '$(id)' })).toThrow();
    expect(curl(BASE, 'GET', '/api/storage/files')).toBe(`curl -s -b ~/.shroud-cookies -c ~/.shroud-cookies '${BASE}/api/storage/files'`);
  });

  it('reads values from a message; names that are not plain words are left out', () => {
    expect(parseSlots('compress 1.5 SOL from wallet "main"')).toMatchObject({ amount: 1.5, unit: 'SOL', name: 'main' });
    expect(parseSlots('share it for 3 days').hours).toBe(72);
    expect(parseSlots('create a wallet named `rm -rf`').name).toBeUndefined();
    expect(parseSlots('create a chain b wallet').chain).toBe('b');
    expect(matchIntent('how do I decompress 2 SOL?')?.id).toBe('decompress');
    expect(matchIntent('what is the weather')).toBeUndefined();
  });

  it('a tool takes no user id: extra arguments are refused, unknown tools answered as data', async () => {
    expect(await callTool({ userId: 'u1' }, 'list_files', { userId: 'u2' })).toMatchObject({ summary: 'invalid arguments', data: { error: 'INVALID_ARGUMENTS' } });
    expect(await callTool({ userId: 'u1' }, 'delete_everything', {})).toMatchObject({ data: { error: 'UNKNOWN_TOOL' } });
    expect(await callTool({ userId: 'u1' }, '__proto__', {})).toMatchObject({ data: { error: 'UNKNOWN_TOOL' } });
  });
});

/** The words a POSIX shell hands the program for a line isShroudLine accepts (single quotes only, nothing to expand). */
const shellWords = (line: string) => line.split(/ (?=(?:[^']*'[^']*')*[^']*$)/).map((w) => (w.startsWith("'") ? w.slice(1, -1) : w));

/** Parses argv with the real `shroud` program; the command found and what it was given, nothing run. */
async function parse(argv: string[]) {
  let seen: { name: string; args: string[]; opts: Record<string, unknown> } | undefined;
  const root = program(async (def, args, opts) => {
    seen = { name: def.name, args, opts };
  });
  root.configureOutput({ writeErr: () => {}, writeOut: () => {} });
  await root.parseAsync(argv, { from: 'user' });
  return seen;
}

describe('suggested shroud commands', () => {
  it('accepts a real command with its own long options; refuses secrets, other APIs, unknown words and shell syntax', () => {
    for (const ok of ['shroud files', 'shroud compress 1 --wallet main', "shroud upload '<file>'", 'shroud bridge status 0b7c2f4e-1d2a-4c3b-9e8f-7a6b5c4d3e2f', 'shroud toolkit hash poseidon 1 2 3', 'shroud login --provider github'])
      expect(isShroudLine(ok), ok).toBe(true);
    for (const bad of [
      'shroud',
      'shroud format-disk',
      'shroud login alice --password hunter22',
      'shroud files --api-url https://evil.example',
      'shroud compress 1 --wallet',
      'shroud compress 1 -w main',
      'shroud compress 1 2 3',
      'shroud files; rm -rf ~',
      'shroud files && reboot',
      'shroud files | sh',
      'shroud files > ~/.bashrc',
      'shroud rm $(whoami)',
      'shroud rm `id`',
      'shroud rm ~/x',
      'shroud rm *',
      "shroud rm 'a'b",
      "shroud rm 'a",
      'shroud rm a\nrm -rf ~',
      'shroud rm #x',
      'shroud  files',
      'shroud rm !!',
    ])
      expect(isSafeCommand(bad, BASE), bad).toBe(false);
  });

  it('builds lines from plain words and placeholders only, and only for real commands and options', () => {
    expect(shroudCommand('share', ['f1'], { expires: 48 })).toBe('shroud share f1 --expires 48');
    expect(shroudCommand('upload', ['<file>'])).toBe("shroud upload '<file>'");
    expect(() => shroudCommand('rm', ['a b'])).toThrow();
    expect(() => shroudCommand('rm', ["it's"])).toThrow();
    expect(() => shroudCommand('rm', ['--force'])).toThrow();
    expect(() => shroudCommand('login', ['alice'], { password: 'x' })).toThrow();
    expect(() => shroudCommand('format-disk')).toThrow();
    expect(shroudCommandName('shroud wallet create trading --chain a')).toBe('wallet create');
    expect(shroudCommandName('shroud bridge chaina-chainb 1 SOL')).toBe('bridge');
  });

  it('whatever the values, a built line is a safe line whose words are exactly the values (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 12 }), { maxLength: 1 }), fc.string({ maxLength: 12 }), (args, wallet) => {
        let line: string;
        try {
          line = shroudCommand('compress', args, { wallet });
        } catch {
          return; // refused: nothing reached a command
        }
        expect(isSafeCommand(line, BASE)).toBe(true);
        expect(shellWords(line)).toEqual(['shroud', 'compress', ...args, '--wallet', wallet]);
      }),
      { numRuns: 2000 },
    );
  });

  it('every command the golden set suggests parses with the real shroud program, as the command the help cites', async () => {
    const lines = golden.map((g) => g.suggest).filter((s): s is string => !!s?.startsWith('shroud '));
    expect(lines.length).toBeGreaterThan(25);
    for (const line of lines) {
      const got = await parse(shellWords(line).slice(1));
      expect(got?.name, line).toBe(shroudCommandName(line));
      expect(commands.some((c) => c.name === got!.name)).toBe(true);
    }
  });
});

