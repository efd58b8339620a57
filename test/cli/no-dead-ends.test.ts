/**
 * The CLI with no dead ends (issue 40), with the real binary against the local runtime: wallet
 * commands on both chains, the bridge's every printed step a command, `--version`, whole coins in
 * every answer, the file's own SHA-256, a wrong file password named so, one signed-out hint,
 * prompts that name their password and a confirmation at `register` (in a real terminal, tmux),
 * and a start from the bundle (lib/cli/build.mjs), not a TypeScript loader.
 */
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { advanceClock } from '#lib/clock.ts';
import { bridgeStepForCli, wholeUnits } from '#lib/cli/commands.ts';
import { startTestRuntime, type TestRuntime } from '../support/runtime.ts';
import { BIN, shroudRunner } from './binary.ts';

let rt: TestRuntime;
const home = mkdtempSync(join(tmpdir(), 'shroud-ends-'));
const { shroud, json } = shroudRunner(() => rt.url, home);
const DEST = `0x0${'5ab1e'.padStart(63, '7')}`;

beforeAll(async () => {
  rt = await startTestRuntime();
  advanceClock(61_000);
  await json(['register', 'ines', '-p', 'correct horse 3']);
  await json(['login', 'ines', '-p', 'correct horse 3']);
  await json(['wallet', 'create', 'main']);
}, 180_000);
afterAll(async () => {
  await rt?.stop();
  rmSync(home, { recursive: true, force: true });
});
beforeEach(() => advanceClock(61_000)); // a fresh rate-limit window per test

describe('the binary', () => {
  it('--version prints the package version', async () => {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    for (const flag of ['--version', '-V']) {
      const r = await shroud([flag]);
      expect(r.code).toBe(0);
      expect(r.stdout).toBe(`${pkg.version}\n`);
    }
  });

  it('starts from the bundle, with no TypeScript loader and none of the proving packages loaded at start', { timeout: 60_000 }, async () => {
    await shroud(['--help']); // makes the bundle if a source changed
    const main = readFileSync(new URL('../../lib/cli/dist/main.js', import.meta.url), 'utf8');
    expect(main).toContain('function completionScript');
    // What the entry imports statically loads at every start: node's modules and small packages, not
    // snarkjs, ffjavascript or circomlibjs (seconds of start-up; they load with the chunks that prove).
    // Its CPU time is measured by `npm run bench -- cli` (aim: 200 ms): tests assert no times.
    const staticImports = [...main.matchAll(/^import [^;]*?from "([^"]+)"/gm)].map((m) => m[1]!);
    expect(staticImports.filter((p) => /snarkjs|ffjavascript|circomlibjs|@solana|@lightprotocol|starknet/.test(p))).toEqual([]);
  });
});

describe('signed out', () => {
  it('every command that needs a session gives the same hint', { timeout: 60_000 }, async () => {
    const nobody = { configDir: join(home, 'nobody') };
    for (const words of [['whoami'], ['files'], ['wallets'], ['balance'], ['bridge', 'history'], ['proofs']]) {
      const r = await shroud(words, nobody);
      expect(r.code, words.join(' ')).toBe(3);
      expect(r.stderr, words.join(' ')).toMatch(/UNAUTHENTICATED: not signed in: sign in with `shroud login <username>`/);
    }
  });
});

describe('wallets on both chains', () => {
  it("balance, airdrop and send take a chain B wallet by name; compression says it is chain A's", { timeout: 180_000 }, async () => {
    const b = await json(['wallet', 'create', 'bmain', '--chain', 'b', '-p', 'b-wallet-pass']);
    expect((await json(['wallets'])).map((w: { name: string }) => w.name).sort()).toEqual(['bmain', 'main']);
    const before = await json(['balance', '--wallet', 'bmain']);
    expect(before).toMatchObject({ address: b.address, formatted: '0' });
    const human = await shroud(['balance', '--wallet', 'bmain']);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toMatch(/wallet\s+bmain \(chain B\)/);
    expect(human.stdout).toMatch(/balance\s+0 STRK/);

    const drop = await shroud(['airdrop', '5', '--wallet', 'bmain']);
    expect(drop.code, drop.stderr).toBe(0);
    expect(drop.stdout).toMatch(/received\s+5 STRK/);
    expect((await json(['balance', '--wallet', b.id])).formatted).toBe('5');

    const sent = await shroud(['send', 'STRK', DEST, '1.5', '--wallet', 'bmain', '-p', 'b-wallet-pass']);
    expect(sent.code, sent.stderr).toBe(0);
    expect(sent.stdout).toMatch(/sent\s+1\.5 STRK/);
    expect(sent.stdout).toMatch(/fee\s+0\.\d+ STRK/);
    expect(Number((await json(['balance', '--wallet', 'bmain'])).formatted)).toBeLessThan(3.5);

    const compress = await shroud(['compress', '1', '--wallet', 'bmain']);
    expect(compress.code).toBe(2);
    expect(compress.stderr).toContain("compression exists on chain A only, and 'bmain' is a chain B wallet");
    expect((await shroud(['balance', '--wallet', 'nope'])).stderr).toContain("no wallet named or numbered 'nope'");
  });
});

describe('one unit convention: whole coins', () => {
  it('airdrop, compress, decompress and balance print whole coins; --json keeps the smallest units', { timeout: 180_000 }, async () => {
    expect((await shroud(['airdrop', '2'])).stdout).toMatch(/received\s+2\n/);
    const compress = await shroud(['compress', '0.5']);
    expect(compress.code, compress.stderr).toBe(0);
    expect(compress.stdout).toMatch(/compressed\s+0\.5\n/);
    expect((await shroud(['decompress', '0.25'])).stdout).toMatch(/decompressed\s+0\.25\n/);
    expect((await shroud(['balance'])).stdout).toMatch(/compressed\s+0\.25\n/);
    const raw = await json(['compress', '0.125']);
    expect(raw).toMatchObject({ compressedAmount: '125000000', decimals: 9 });
    expect(wholeUnits('500000000', 9)).toBe('0.5');
    expect(wholeUnits(10n ** 18n * 3n, 18)).toBe('3');
    expect(wholeUnits('7', 6)).toBe('0.000007');
  });
});

describe('files', () => {
  it("upload prints the file's own SHA-256 and the ciphertext's labelled; a wrong file password is named so", { timeout: 300_000 }, async () => {
    const bytes = Buffer.from(Array.from({ length: 50_000 }, (_, i) => (i * 31) % 256));
    writeFileSync(join(home, 'plain.bin'), bytes);
    const own = createHash('sha256').update(bytes).digest('hex');
    const up = await shroud(['upload', 'plain.bin', '-p', 'file pass 3']);
    expect(up.code, up.stderr).toBe(0);
    expect(up.stdout).toMatch(new RegExp(`sha-256\\s+${own}\\n`));
    expect(up.stdout).toMatch(/ciphertext\s+sha256:[0-9a-f]{64} \(.* encrypted\)/);
    const id = /id\s+(\S+)/.exec(up.stdout)![1]!;
    const wrong = await shroud(['download', id, 'x.bin', '-p', 'not the file password']);
    expect(wrong.code).toBe(3);
    expect(wrong.stderr).toContain(`WRONG_FILE_PASSWORD: wrong file password for ${id}`);
    const down = await json(['download', id, 'back.bin', '-p', 'file pass 3']);
    expect(down.sha256).toBe(own);
  });
});

describe('the bridge: a command for each step it prints', () => {
  it('step 2 is `shroud bridge source-tx`, which attaches the transaction; `bridge cancel` ends a pending one', { timeout: 120_000 }, async () => {
    const human = await shroud(['bridge', 'chaina-chainb', '0.25', 'SOL', '--to', DEST]);
    expect(human.code, human.stderr).toBe(0);
    const id = /bridge\s+([0-9a-f-]{36})/.exec(human.stdout)![1]!;
    expect(human.stdout).toMatch(new RegExp(`step 2\\s+shroud bridge source-tx ${id} <the transaction signature>`));
    expect(human.stdout).toMatch(new RegExp(`step 3\\s+Follow: shroud bridge status ${id}`));
    expect(human.stdout).not.toMatch(/POST \/api|GET \/api/);
    const cancelled = await json(['bridge', 'cancel', id]);
    expect(cancelled).toMatchObject({ id, status: 'cancelled' });
    // source-tx reaches the route: a cancelled transfer takes no transaction (409 is exit 5)
    const late = await shroud(['bridge', 'source-tx', id, '5'.repeat(88)]);
    expect(late.code, late.stderr).toBe(5);
    expect(late.stderr).toContain('source-tx');
    expect((await shroud(['bridge', 'source-tx', id])).code).toBe(2);
    // the Ethereum route's and a withdrawal's step 2 read the same way
    expect(bridgeStepForCli('POST /api/bridge/abc-1/source-tx {"txHash": "<the Ethereum transaction hash>"}.')).toBe(
      'shroud bridge source-tx abc-1 <the Ethereum transaction hash>',
    );
    expect(bridgeStepForCli('The sequencer delivers it; follow GET /api/bridge/status/abc-1.')).toBe(
      'The sequencer delivers it; follow: shroud bridge status abc-1.',
    );
  });
});

describe('ask answers about your own state with the values', () => {
  it('"what is my balance?" gives both wallets\' balances from the wallet_balances tool, not routes', { timeout: 120_000 }, async () => {
    const { balance } = await json(['balance', '--wallet', 'main']).then((b) => ({ balance: b.formatted as string }));
    const compressed = (await json(['balance', '--wallet', 'main'])).compressed.formatted as string;
    const bmain = (await json(['balance', '--wallet', 'bmain'])).formatted as string;
    const a = await json(['ask', 'what is my balance?']);
    expect(a.tools.map((t: { name: string }) => t.name)).toContain('wallet_balances');
    expect(a.text).toContain(`Your wallet "main" holds ${balance} SOL; ${compressed} SOL compressed.`);
    expect(a.text).toContain(`Your chain B wallet "bmain" holds ${bmain} STRK.`);
    expect(a.text).not.toMatch(/GET \/api\/wallets/);
  });
});

describe('prompts in a real terminal (tmux)', () => {
  it('register asks for the new password twice and refuses two that differ; prompts say which password', { timeout: 120_000 }, async () => {
    const session = `shroud-ends-${process.pid}`;
    const env = `NO_COLOR=1 SHROUD_CONFIG_DIR=${join(home, 'tmux')} SHROUD_API_URL=${rt.url}`;
    execFileSync('tmux', ['new-session', '-d', '-s', session, '-x', '160', '-y', '40']);
    const screen = () => execFileSync('tmux', ['capture-pane', '-p', '-t', session]).toString();
    const waitFor = async (re: RegExp) => {
      for (let i = 0; i < 240; i++) {
        if (re.test(screen())) return;
        await new Promise((r) => setTimeout(r, 250));
      }
      throw new Error(`not on the screen: ${re}\n${screen()}`);
    };
    const type = (...keys: string[]) => execFileSync('tmux', ['send-keys', '-t', session, ...keys]);
    try {
      type(`${env} ${process.execPath} ${BIN} register tmuxer; echo "ex""it=$?"`, 'Enter');
      await waitFor(/new account password:\s*$/m);
      type('first secret', 'Enter');
      await waitFor(/new account password again:\s*$/m);
      type('other secret', 'Enter');
      await waitFor(/exit=2/);
      expect(screen()).toContain('the two account passwords differ');
      type('clear', 'Enter');
      type(`${env} ${process.execPath} ${BIN} register tmuxer; echo "ex""it=$?"`, 'Enter');
      await waitFor(/new account password:\s*$/m);
      type('same secret', 'Enter');
      await waitFor(/again:\s*$/m);
      type('same secret', 'Enter');
      await waitFor(/exit=0/);
      expect(screen()).toMatch(/registered\s+tmuxer/);
      expect(screen()).not.toContain('same secret'); // no echo
      type('clear', 'Enter');
      type(`${env} ${process.execPath} ${BIN} login tmuxer; echo "ex""it=$?"`, 'Enter');
      await waitFor(/account password for tmuxer:\s*$/m);
      type('same secret', 'Enter');
      await waitFor(/exit=0/);
      type('clear', 'Enter');
      type(`${env} ${process.execPath} ${BIN} download no-such-file; echo "ex""it=$?"`, 'Enter');
      await waitFor(/file password for no-such-file \(the one it was uploaded with\):\s*$/m);
      type('x', 'Enter');
      await waitFor(/exit=4/);
    } finally {
      execFileSync('tmux', ['kill-session', '-t', session]);
    }
  });
});
