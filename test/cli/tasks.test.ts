/**
 * The documented tasks that had no `shroud` command (issue 40), done with the real binary
 * (lib/cli/shroud.mjs) against the local runtime: a swap quoted then executed (the wallet's sUSD
 * grows by what it printed), rewards points after a compress, a group made and a member added,
 * a token made and minted, a wallet imported by its key.
 */
import { Keypair } from '@solana/web3.js';
import bs58 from 'bs58';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestRuntime, type TestRuntime } from '../support/runtime.ts';
import { shroudRunner } from './binary.ts';

let rt: TestRuntime;
const home = mkdtempSync(join(tmpdir(), 'shroud-tasks-'));

beforeAll(async () => {
  rt = await startTestRuntime({ RATE_LIMIT_MULTIPLIER: '20' });
}, 120_000);
afterAll(async () => {
  await rt?.stop();
  rmSync(home, { recursive: true, force: true });
});

const { shroud, json } = shroudRunner(() => rt.url, home);

describe('shroud: swaps, rewards, groups, tokens, import', () => {
  it('signed out, the new commands give the sign-in hint and exit 3', { timeout: 60_000 }, async () => {
    for (const args of [['rewards'], ['swap', 'pairs'], ['group', 'create', 'g']]) {
      const r = await shroud(args);
      expect(r.code, args.join(' ')).toBe(3);
      expect(r.stderr).toContain('shroud login');
    }
  });

  it('register, a wallet with coins', { timeout: 180_000 }, async () => {
    await json(['register', 'tess', '-p', 'correct horse 1']);
    await json(['login', 'tess', '-p', 'correct horse 1']);
    await json(['wallet', 'create', 'main']);
    await json(['airdrop', '20']);
  });

  it('swap pairs, quote, execute: the wallet receives what the quote said', { timeout: 180_000 }, async () => {
    const pairs = await json(['swap', 'pairs']);
    const sUSD = pairs.pairs[0].quote.mint as string;
    expect((await shroud(['swap', 'pairs'])).stdout).toMatch(/SOL-sUSD.*SOL.*sUSD.*0\.3%/);
    const quoted = await shroud(['swap', 'quote', 'SOL', 'sUSD', '2', '--slippage', '100']);
    expect(quoted.code, quoted.stderr).toBe(0);
    expect(quoted.stdout).toMatch(/you give\s+2 SOL/);
    const quoteId = quoted.stdout.match(/shroud swap execute (\S+)/)![1]!;
    const before = await json(['balance', '--token', sUSD]);
    const done = await shroud(['swap', 'execute', quoteId]);
    expect(done.code, done.stderr).toBe(0);
    const got = done.stdout.match(/got\s+([\d.]+) sUSD/)![1]!;
    expect(Number(got)).toBeGreaterThan(250);
    const after = await json(['balance', '--token', sUSD]);
    expect(Number(after.formatted) - Number(before.formatted)).toBeCloseTo(Number(got), 6);
    // a quote used once is not used again; a bad output choice is a usage error
    expect((await shroud(['swap', 'execute', quoteId])).code).not.toBe(0);
    expect((await shroud(['swap', 'quote', 'SOL', 'sUSD', '1', '--output', 'nowhere'])).code).toBe(2);
    expect((await json(['swap', 'orders']))[0]).toMatchObject({ status: 'executed' });
  });

  it('a one-time output, swept to another address', { timeout: 180_000 }, async () => {
    const q = await json(['swap', 'quote', 'SOL', 'sUSD', '1', '--output', 'one-time']);
    const out = await json(['swap', 'execute', q.quoteId]);
    const dest = Keypair.generate().publicKey.toBase58();
    const swept = await shroud(['swap', 'sweep', out.outputAddress, dest]);
    expect(swept.code, swept.stderr).toBe(0);
    expect(swept.stdout).toMatch(/swept\s+[\d.]+ sUSD/);
    expect(swept.stdout).toMatch(/left there\s+0 sUSD/);
  });

  it('rewards: points after a compress; the leaderboard lists the pseudonym', { timeout: 180_000 }, async () => {
    await json(['compress', '1']);
    const me = await json(['rewards']);
    expect(me.points).toBeGreaterThan(0);
    const table = await shroud(['rewards', 'leaderboard']);
    expect(table.stdout).toContain(me.pseudonym);
    expect((await shroud(['rewards'])).stdout).toMatch(new RegExp(`points\\s+${me.points}`));
    // the current epoch has not ended: nothing to claim (refused by the service, not a crash)
    const claim = await shroud(['rewards', 'claim', String(me.epoch)]);
    expect([4, 5]).toContain(claim.code);
    expect((await shroud(['rewards', 'claim', 'soon'])).code).toBe(2);
  });

  it('group create, add a member, show it', { timeout: 120_000 }, async () => {
    const g = await json(['group', 'create', 'members']);
    expect(g.size).toBe(0);
    const added = await json(['group', 'add', g.id, '123456789']);
    expect(added).toMatchObject({ index: 0, size: 1 });
    expect(added.root).not.toBe(g.root);
    const shown = await json(['group', 'show', g.id]);
    expect(shown).toMatchObject({ size: 1, root: added.root, commitments: ['123456789'] });
  });

  it('attest group-member: a member proves it with the secret behind their commitment; a stranger cannot', { timeout: 300_000 }, async () => {
    const g = await json(['group', 'create', 'provers']);
    const commitment = (await json(['toolkit', 'hash', 'poseidon', '777'])).hash as string;
    await json(['group', 'add', g.id, commitment]);
    const a = await shroud(['attest', 'group-member', '--group', g.id, '--secret', '777', '--scope', 'club']);
    expect(a.code, a.stderr).toBe(0);
    expect(a.stdout).toMatch(/schema\s+group-member/);
    expect(a.stdout).toContain(`claim group`);
    const mine = await json(['attest', 'mine']);
    expect(mine[0]).toMatchObject({ schema: 'group-member', claims: { group: g.id } });
    const stranger = await shroud(['attest', 'group-member', '--group', g.id, '--secret', '778']);
    expect(stranger.code).toBe(4);
    expect(stranger.stderr).toContain('shroud group add');
    expect((await shroud(['attest', 'group-member', '--secret', '777'])).code).toBe(2);
  });

  it('token create, token mint: the balance is what was minted', { timeout: 180_000 }, async () => {
    const t = await json(['token', 'create', '--decimals', '2']);
    const minted = await shroud(['token', 'mint', t.mintAddress, '12.5']);
    expect(minted.code, minted.stderr).toBe(0);
    expect(minted.stdout).toMatch(/minted\s+12\.5\b/);
    expect((await json(['balance', '--token', t.mintAddress])).formatted).toBe('12.5');
    // compress and decompress that token (--token): the compressed balance follows
    expect((await shroud(['compress', '4.25', '--token', t.mintAddress])).stdout).toMatch(/compressed\s+4\.25\b/);
    expect(await json(['balance', '--token', t.mintAddress])).toMatchObject({ formatted: '8.25', compressed: { formatted: '4.25' } });
    expect((await shroud(['decompress', '1.25', '--token', t.mintAddress])).stdout).toMatch(/decompressed\s+1\.25\b/);
    expect((await json(['balance', '--token', t.mintAddress])).compressed.formatted).toBe('3');
    expect((await shroud(['token', 'create', '--decimals', '12'])).code).toBe(2);
  });

  it('shielded deposit prints a note; a withdraw from that note (read from stdin, signed out) pays the recipient', { timeout: 300_000 }, async () => {
    const pools = await json(['shielded', 'pools']);
    expect(pools.map((p: { id: string }) => p.id)).toContain('sol-0.1');
    const dep = await shroud(['shielded', 'deposit', 'sol-0.1']);
    expect(dep.code, dep.stderr).toBe(0);
    expect(dep.stdout).toMatch(/deposited\s+0\.1 SOL/);
    const note = dep.stdout.match(/shroud-note:v1:\S+/)![0];
    expect((await json(['shielded', 'deposits']))[0]).toMatchObject({ pool: 'sol-0.1', status: 'complete' });
    const recipient = Keypair.generate().publicKey.toBase58();
    // no session: the withdrawal links nothing to the depositor's account
    const out = await shroud(['shielded', 'withdraw', recipient, '--json'], { configDir: join(home, 'nobody'), input: `${note}\n` });
    expect(out.code, out.stderr).toBe(0);
    const job = JSON.parse(out.stdout);
    expect(job).toMatchObject({ status: 'paid', recipient, amount: '100000000', fee: '0' });
    expect((await json(['shielded', 'job', job.jobId])).status).toBe('paid');
    const { chainA } = await import('#lib/chains/chain-a/index.ts');
    const { PublicKey } = await import('@solana/web3.js');
    expect(BigInt(await (await chainA()).rpc.getBalance(new PublicKey(recipient)))).toBe(100_000_000n);
    // the same note again is refused (its nullifier is spent); a malformed note is a usage error
    expect((await shroud(['shielded', 'withdraw', recipient, '--note', note])).code).toBe(5);
    expect((await shroud(['shielded', 'withdraw', recipient, '--note', 'shroud-note:v1:sol-0.1:zz'])).code).toBe(2);
    expect((await shroud(['shielded', 'withdraw', recipient, '--note', note, '--relayer-fee', '0.0000000001'])).code).toBe(2);
  });

  it('bug: a report filed, listed back', { timeout: 60_000 }, async () => {
    const filed = await json(['bug', 'balance shows 0', 'after a compress the balance read 0', '--severity', 'high']);
    expect(filed.id).toMatch(/^[0-9a-f-]{36}$/);
    const list = await json(['bug', 'list']);
    expect(list.find((r: { id: string }) => r.id === filed.id)).toMatchObject({
      title: 'balance shows 0',
      description: 'after a compress the balance read 0',
      severity: 'high',
    });
    expect((await shroud(['bug', 'x', 'y', '--severity', 'dire'])).code).toBe(2);
  });

  it("wallet import: the key from stdin, the address is the key's", { timeout: 120_000 }, async () => {
    const kp = Keypair.generate();
    const r = await shroud(['wallet', 'import', 'brought', '--json'], { input: `${bs58.encode(kp.secretKey)}\n` });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ name: 'brought', chain: 'a', address: kp.publicKey.toBase58() });
    expect(r.stdout + r.stderr).not.toContain(bs58.encode(kp.secretKey));
  });
});
