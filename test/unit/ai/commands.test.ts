import { describe, expect, it } from 'vitest';
import { isSafeCommand } from '#lib/ai/commands.ts';
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
