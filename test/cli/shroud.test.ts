/**
 * `shroud`, the real binary (lib/cli/shroud.mjs, as `npx shroud` runs it) against the local
 * runtime: account, files (encrypt, prove, upload, download and compare bytes), wallets, toolkit,
 * JSON output, exit codes by error class, the 0600 session file, help and completion, and one run
 * in a real terminal (tmux) read off the screen.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commands } from '#lib/cli/commands.ts';
import { program } from '#lib/cli/main.ts';
import { startTestRuntime, type TestRuntime } from '../support/runtime.ts';
import { BIN, shroudRunner } from './binary.ts';

let rt: TestRuntime;
const home = mkdtempSync(join(tmpdir(), 'shroud-cli-'));

beforeAll(async () => {
  rt = await startTestRuntime();
}, 120_000);
afterAll(async () => {
  await rt?.stop();
  rmSync(home, { recursive: true, force: true });
});

const { shroud, json } = shroudRunner(() => rt.url, home);

describe('shroud', () => {
  it('register, login (the session file is 0600), whoami, a wrong password is exit 3', { timeout: 180_000 }, async () => {
    const reg = await json(['register', 'cleo', '-p', 'correct horse 1']);
    expect(reg.user.username).toBe('cleo');
    expect(reg.user.zkId).toMatch(/^did:zk:/);
    const login = await shroud(['login', 'cleo'], { input: 'correct horse 1\n' }); // the password from stdin
    expect(login.code, login.stderr).toBe(0);
    expect(login.stdout).toMatch(/signed in as\s+cleo/);
    expect(statSync(join(home, 'config', 'session.json')).mode & 0o777).toBe(0o600);
    expect((await json(['whoami'])).user.username).toBe('cleo');
    const wrong = await shroud(['login', 'cleo', '-p', 'wrong password'], { configDir: join(home, 'other') });
    expect(wrong.code).toBe(3);
    expect(wrong.stderr).toContain('INVALID_CREDENTIALS');
  });

  it('upload encrypts and proves, files lists it, download gives back the same bytes, share, rm', { timeout: 300_000 }, async () => {
    const bytes = Buffer.from(Array.from({ length: 200_000 }, (_, i) => (i * 7919) % 251));
    writeFileSync(join(home, 'notes.bin'), bytes);
    const up = await json(['upload', 'notes.bin', '-p', 'file pass 1']);
    expect(up.filename).toBe('notes.bin');
    const files = await json(['files']);
    expect(files.map((f: { id: string }) => f.id)).toContain(up.id);
    const table = await shroud(['files']);
    expect(table.stdout).toContain('notes.bin');
    expect(table.stdout).toMatch(/id.*name.*size/);
    const down = await json(['download', up.id, 'back.bin', '-p', 'file pass 1']);
    expect(down.size).toBe(bytes.length);
    expect(Buffer.compare(readFileSync(join(home, 'back.bin')), bytes)).toBe(0);
    const badPassword = await shroud(['download', up.id, 'x.bin', '-p', 'not the password']);
    expect(badPassword.code).toBe(3); // 401 INVALID_PROOF
    const link = await json(['share', up.id, '--expires', '2']);
    expect(link.shareUrl).toContain(link.shareToken);
    const week = await json(['share', up.id, '--expires', '7d']);
    expect(Date.parse(week.expiresAt) - Date.now()).toBeGreaterThan(6.9 * 86_400_000);
    expect((await shroud(['share', up.id, '--expires', 'soon'])).code).toBe(2);
    // the owner's links: listed without their token, revoked by id (the link stops opening)
    const listed = (await json(['shares'])).find((l: { expiresAt: string }) => l.expiresAt === link.expiresAt);
    expect(listed).toMatchObject({ fileId: up.id, filename: 'notes.bin', status: 'active' });
    expect(JSON.stringify(listed)).not.toContain(link.shareToken);
    expect((await shroud(['shares'])).stdout).toMatch(/notes\.bin.*active/);
    expect((await shroud(['shares', 'revoke', listed.id])).stdout).toContain(`revoked ${listed.id}`);
    expect((await json(['shares'])).find((l: { id: string }) => l.id === listed.id).status).toBe('revoked');
    expect((await shroud(['shares', 'revoke', '000000000000000000000'])).code).toBe(4);
    expect((await shroud(['rm', up.id])).code).toBe(0);
    const gone = await shroud(['download', up.id, 'x.bin', '-p', 'file pass 1']);
    expect(gone.code).toBe(4);
  });

  it('wallets: create, list, airdrop, balance', { timeout: 180_000 }, async () => {
    const w = await json(['wallet', 'create', 'main']);
    expect(w).toMatchObject({ chain: 'a', name: 'main', isActive: true });
    expect((await json(['wallets'])).map((x: { id: string }) => x.id)).toEqual([w.id]);
    expect((await json(['airdrop', '2'])).formatted).toBe('2');
    const bal = await json(['balance']);
    expect(bal).toMatchObject({ address: w.address, formatted: '2' });
    // --wallet takes the name as well as the id (the assistant suggests names); an unknown one is exit 4
    expect(await json(['balance', '--wallet', 'main'])).toMatchObject({ address: w.address });
    expect(await json(['balance', '--wallet', w.id])).toMatchObject({ address: w.address });
    expect((await shroud(['balance', '--wallet', 'nope'])).code).toBe(4);
  });

  it('toolkit: field, hash, ec, shamir, prove and verify', { timeout: 180_000 }, async () => {
    expect(await json(['toolkit', 'field', 'add', '1', '2'])).toEqual({ result: '3' });
    expect((await json(['toolkit', 'hash', 'poseidon', '1'])).hash).toBe('0x29176100eaa962bdc1fe6c654d6a3c130e96a4d1168b33848b897dc502820133');
    expect((await shroud(['toolkit', 'ec', 'base'])).stdout).toMatch(/^x\s+5299619240641551281634865583518297030282874472190772894086521144482721001553/m);
    const split = await json(['toolkit', 'shamir', 'split', '42', '2', '3']);
    expect(await json(['toolkit', 'shamir', 'combine', ...split.shares.slice(1)])).toEqual({ secret: '42' });
    const proof = await json(['toolkit', 'prove', 'secret=5']);
    expect(await json(['toolkit', 'verify', JSON.stringify(proof)])).toEqual({ valid: true });
  });

  it('exit codes by error class: usage 2, not signed in 3, unreachable 7', { timeout: 120_000 }, async () => {
    expect((await shroud(['toolkit', 'field', 'nope'])).code).toBe(2);
    expect((await shroud(['no-such-command'])).code).toBe(2);
    expect((await shroud(['toolkit', 'field', 'add', 'x', '1'])).code).toBe(2); // 400 INVALID_INPUT
    expect((await shroud(['whoami'], { configDir: join(home, 'nobody') })).code).toBe(3);
    const down = await shroud(['whoami', '--api-url', 'http://127.0.0.1:9'], { configDir: join(home, 'nobody') });
    expect(down.code).toBe(7);
    expect(down.stderr).toContain('NETWORK_ERROR');
  });

  it('--help for every command, shell completion, the config file', { timeout: 180_000 }, async () => {
    // Every command's help in-process (commander's own text), and the binary's for a few.
    const root = program();
    for (const def of commands) {
      const cmd = def.name.split(' ').reduce((c, w) => c.commands.find((x) => x.name() === w)!, root);
      expect(cmd?.helpInformation().replace(/\s+/g, ' '), def.name).toContain(def.summary);
    }
    for (const words of [[], ['upload'], ['wallet', 'create'], ['toolkit', 'field']]) {
      const r = await shroud([...words, '--help']);
      expect(r.code, words.join(' ')).toBe(0);
      expect(r.stdout).toMatch(/^Usage: shroud/);
    }
    const completion = await shroud(['completion', 'bash']);
    expect(completion.stdout).toContain('complete -F _shroud shroud');
    expect(completion.stdout).toContain('toolkit');
    const dir = join(home, 'cfg');
    expect((await shroud(['config', 'set-url', 'http://example.test:1234'], { configDir: dir })).code).toBe(0);
    const shown = await shroud(['config', 'show', '--json'], { configDir: dir, input: '' });
    expect(JSON.parse(shown.stdout).apiUrl).toBe(rt.url); // the environment wins over the file
    expect(JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')).apiUrl).toBe('http://example.test:1234');
  });

  it('logout ends the session: whoami is exit 3 afterwards', { timeout: 60_000 }, async () => {
    expect((await shroud(['logout'])).code).toBe(0);
    expect((await shroud(['whoami'])).code).toBe(3);
  });
});

describe('shroud in a real terminal (tmux)', () => {
  const hasTmux = (() => {
    try {
      execFileSync('tmux', ['-V']);
      return true;
    } catch {
      return false;
    }
  })();

  it('draws a table and a key/value answer on the screen', { timeout: 120_000 }, async () => {
    expect(hasTmux, 'tmux is required (apt-get install -y tmux; .ci/run installs it)').toBe(true);
    const session = `shroud-test-${process.pid}`;
    const env = `SHROUD_CONFIG_DIR=${join(home, 'tmux')} SHROUD_API_URL=${rt.url}`;
    const node = process.execPath;
    execFileSync('tmux', ['new-session', '-d', '-s', session, '-x', '160', '-y', '40']);
    try {
      const type = (line: string) => execFileSync('tmux', ['send-keys', '-t', session, line, 'Enter']);
      // "ex""it=" on the command line, "exit=" only in the output.
      type(`${env} ${node} ${BIN} toolkit field mul 6 7; echo "ex""it=$?"`);
      type(`${env} ${node} ${BIN} wallets; echo "ex""it=$?"`);
      let screen = '';
      for (let i = 0; i < 120 && (screen.match(/exit=/g) ?? []).length < 2; i++) {
        await new Promise((r) => setTimeout(r, 500));
        screen = execFileSync('tmux', ['capture-pane', '-p', '-t', session]).toString();
      }
      expect(screen).toMatch(/result\s+42/);
      expect(screen).toMatch(/exit=0/);
      expect(screen).toContain('UNAUTHENTICATED'); // wallets needs a session: the error on the screen
      expect(screen).toMatch(/exit=3/);
    } finally {
      execFileSync('tmux', ['kill-session', '-t', session]);
    }
  });
});
