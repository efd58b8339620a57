/**
 * `shroud bridge`, `bridge status`, `bridge history`, `attest` (proof made in the binary's own
 * process), `attest schemas|mine|verify` and `ask` (the assistant's stream) with the real binary
 * against the local runtime (LiteSVM chain A, the local relayer and chain B ledger, the retrieval
 * assistant): JSON and human output, exit codes by error class.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { advanceClock } from '#lib/clock.ts';
import { commands } from '#lib/cli/commands.ts';
import { completionScript, program } from '#lib/cli/main.ts';
import { startTestRuntime, type TestRuntime } from '../support/runtime.ts';
import { shroudRunner } from './binary.ts';

let rt: TestRuntime;
const home = mkdtempSync(join(tmpdir(), 'shroud-more-'));
const { shroud, json } = shroudRunner(() => rt.url, home);
const DEST = `0x0${'5ab1e'.padStart(63, '7')}`;
const DEST64 = `0x${BigInt(DEST).toString(16).padStart(64, '0')}`;

beforeAll(async () => {
  rt = await startTestRuntime();
  advanceClock(61_000);
  await json(['register', 'rosa', '-p', 'correct horse 2']);
  await json(['login', 'rosa', '-p', 'correct horse 2']);
  await json(['wallet', 'create', 'main']);
  await json(['airdrop', '3']);
}, 180_000);
afterAll(async () => {
  await rt?.stop();
  rmSync(home, { recursive: true, force: true });
});
beforeEach(() => advanceClock(61_000)); // a fresh rate-limit window per test

describe('shroud bridge', () => {
  let sent: string;
  it('deposits from a named wallet (submitted), or answers the steps to send it yourself (pending)', { timeout: 120_000 }, async () => {
    const out = await json(['bridge', 'chaina-chainb', '0.5', 'SOL', '--to', DEST, '--wallet', 'main']);
    expect(out.transaction).toMatchObject({
      bridgeType: 'chaina-chainb',
      direction: 'deposit',
      token: 'SOL',
      amount: '0.5',
      destAddress: DEST64,
      status: 'submitted',
    });
    expect(out.transaction.sourceTxHash).toBeTruthy();
    sent = out.transaction.id;

    const human = await shroud(['bridge', 'chaina-chainb', '0.25', 'SOL', '--to', DEST]);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toMatch(/status\s+pending/);
    expect(human.stdout).toMatch(/step 1\s+\S/);
    expect(human.stdout).toMatch(/follow\s+shroud bridge status [0-9a-f-]{36}/);
  });

  it('status and history', { timeout: 120_000 }, async () => {
    const status = await json(['bridge', 'status', sent]);
    expect(status).toMatchObject({ id: sent, token: 'SOL', amount: '0.5' });
    expect(['submitted', 'source_confirmed', 'completed']).toContain(status.status);
    const history = await json(['bridge', 'history']);
    expect(history).toHaveLength(2);
    expect(history.map((t: { id: string }) => t.id)).toContain(sent);
    const table = await shroud(['bridge', 'history']);
    expect(table.stdout).toMatch(/id.*route.*amount.*status/);
    expect(table.stdout).toContain('0.5 SOL');
  });

  it('exit codes: refused inputs 2, unknown transfer 4, unknown wallet 4, missing --to 2', { timeout: 120_000 }, async () => {
    const token = await shroud(['bridge', 'chaina-chainb', '1', 'DOGE', '--to', DEST]);
    expect(token.code).toBe(2);
    expect(token.stderr).toContain('UNSUPPORTED_TOKEN');
    // a withdrawal goes to a chain A address: a chain B one is refused
    const withdraw = await shroud(['bridge', 'chaina-chainb', '1', 'SOL', '--to', DEST, '--direction', 'withdraw']);
    expect(withdraw.code).toBe(2);
    expect(withdraw.stderr).toContain('INVALID_ADDRESS');
    expect((await shroud(['bridge', 'chaina-chainb', '1', 'SOL', '--to', '0xzz'])).stderr).toContain('INVALID_ADDRESS');
    expect((await shroud(['bridge', 'status', '00000000-0000-4000-8000-000000000000'])).code).toBe(4);
    expect((await shroud(['bridge', 'chaina-chainb', '1', 'SOL', '--to', DEST, '--wallet', 'nope'])).code).toBe(4);
    expect((await shroud(['bridge', 'chaina-chainb', '1', 'SOL'])).code).toBe(2);
  });
});

describe('shroud attest', () => {
  let ageId: string;
  it('schemas lists what can be attested', { timeout: 60_000 }, async () => {
    const schemas = await json(['attest', 'schemas']);
    expect(schemas.map((s: { id: string }) => s.id).sort()).toEqual(['age-over-18', 'group-member', 'preimage', 'range']);
    expect((await shroud(['attest', 'schemas'])).stdout).toMatch(/age-over-18.*range_scoped/);
  });

  it('proves here and gets an attestation: age over 18 (blinding kept), a preimage; one per scope', { timeout: 240_000 }, async () => {
    const age = await json(['attest', 'age-over-18', '--value', '30']);
    expect(age.attestation).toMatchObject({
      schema: 'age-over-18',
      scope: 'default',
      claims: { min: '18', max: '150', commitment: expect.stringMatching(/^\d+$/) },
    });
    expect(age.blinding).toMatch(/^\d+$/);
    expect(JSON.stringify(age.attestation)).not.toContain('"30"'); // the age stays here
    ageId = age.attestation.id;

    const pre = await shroud(['attest', 'preimage', '--secret', '1', '--scope', 'club']);
    expect(pre.code, pre.stderr).toBe(0);
    // Poseidon(1), as `toolkit hash poseidon 1` gives it.
    expect(pre.stdout).toContain(BigInt('0x29176100eaa962bdc1fe6c654d6a3c130e96a4d1168b33848b897dc502820133').toString());

    // The nullifier is Poseidon(blinding, scope): the same subject (blinding) in the same scope is attested once.
    const again = await shroud(['attest', 'age-over-18', '--value', '31', '--blinding', age.blinding]);
    expect(again.code).toBe(5); // 409 ALREADY_ATTESTED
    expect(again.stderr).toContain('ALREADY_ATTESTED');
    const young = await shroud(['attest', 'age-over-18', '--value', '12', '--scope', 'other']);
    expect(young.code).toBe(2); // no proof can be made of a false claim
    expect(young.stderr).toContain('PROOF_FAILED');
    expect((await shroud(['attest', 'group-member', '--secret', '1'])).code).toBe(2);
    expect((await shroud(['attest', 'no-such-schema'])).code).toBe(2);
    expect((await shroud(['attest', 'preimage'])).stderr).toContain('--secret');
  });

  it('mine lists them, verify checks one', { timeout: 120_000 }, async () => {
    const mine = await json(['attest', 'mine']);
    expect(mine.map((a: { schema: string }) => a.schema).sort()).toEqual(['age-over-18', 'preimage']);
    expect((await shroud(['attest', 'mine'])).stdout).toMatch(/age-over-18.*commitment=/);
    expect(await json(['attest', 'verify', ageId])).toEqual({ valid: true, revoked: false, expired: false, reasons: [] });
    expect((await shroud(['attest', 'verify', ageId])).stdout).toMatch(/valid\s+true/);
    expect((await shroud(['attest', 'verify', '00000000-0000-4000-8000-000000000000'])).code).toBe(4);
  });
});

describe('shroud ask', () => {
  it('streams the answer, then lists the sources and the commands to type', { timeout: 120_000 }, async () => {
    const r = await shroud(['ask', 'what is my bridge transfer doing?']);
    expect(r.code, r.stderr).toBe(0);
    const [text, rest] = r.stdout.split('\nsources:\n');
    expect(text).toMatch(/^Your latest bridge transfer of 0\.25 SOL .* is pending/); // the one without a wallet
    expect(rest).toContain('docs/bridge.md'); // the page that documents the bridge is a source
    expect(rest).toContain('shroud bridge status'); // the command's help is a source
    expect(rest).toMatch(/to do it, type \(nothing was run\):\n {2}\$ shroud bridge status [0-9a-f-]{36}\n/);
    expect(rest).toMatch(/continue: shroud ask -c [0-9a-f-]{36}/);
  });

  it('--json gives the folded answer; a conversation continues; an empty question is exit 2; signed out is exit 3', { timeout: 120_000 }, async () => {
    const a = await json(['ask', 'how do I share a file for 3 days?']);
    expect(a).toMatchObject({ backend: 'retrieval', conversationId: expect.stringMatching(/^[0-9a-f-]{36}$/), usage: { inputTokens: expect.any(Number) } });
    expect(a.suggestions[0].command).toMatch(/^shroud share .+ --expires 72$/);
    expect(a.citations.length).toBeGreaterThan(0);
    const next = await json(['ask', '-c', a.conversationId, 'and for 5 days?']);
    expect(next.conversationId).toBe(a.conversationId);
    expect((await shroud(['ask', ' '])).code).toBe(2);
    expect((await shroud(['ask', 'hello'], { configDir: join(home, 'nobody') })).code).toBe(3);
  });
});

describe('the new commands in the shared table', () => {
  it('each has --help and completion', () => {
    const root = program();
    for (const name of ['bridge', 'bridge status', 'bridge history', 'attest', 'attest schemas', 'attest mine', 'attest verify', 'ask']) {
      const def = commands.find((d) => d.name === name)!;
      expect(def, name).toBeTruthy();
      const cmd = name.split(' ').reduce((c, w) => c.commands.find((x) => x.name() === w)!, root);
      expect(cmd.helpInformation().replace(/\s+/g, ' '), name).toContain(def.summary);
    }
    const bash = completionScript('bash');
    expect(bash).toMatch(/bridge\) COMPREPLY=\( \$\(compgen -W "status history source-tx cancel"/);
    expect(bash).toMatch(/attest\) COMPREPLY=\( \$\(compgen -W "schemas mine verify revoke"/);
    expect(bash).toMatch(/compgen -W "[^"]*\bask\b/);
  });
});

// last: a refused withdrawal leaves a failed record, which would change `ask`'s "latest transfer" above
describe('shroud bridge --direction withdraw', () => {
  it('withdraws from a chain B wallet with its password: the wallet is looked up on chain B and the password reaches the server', {
    timeout: 120_000,
  }, async () => {
    const b = await json(['wallet', 'create', 'outbound', '--chain', 'b', '-p', 'b-wallet-pass']);
    const a = await json(['wallet', 'create', 'landing']);
    // the chain A name is not a chain B wallet
    expect(
      (await shroud(['bridge', 'chaina-chainb', '0.1', 'SOL', '--to', a.address, '--direction', 'withdraw', '--wallet', 'landing', '-p', 'x'])).stderr,
    ).toContain('WALLET_NOT_FOUND');
    const wrong = await shroud([
      'bridge',
      'chaina-chainb',
      '0.1',
      'SOL',
      '--to',
      a.address,
      '--direction',
      'withdraw',
      '--wallet',
      b.name,
      '-p',
      'not-the-password',
    ]);
    expect(wrong.code).toBe(3);
    expect(wrong.stderr).toContain('INVALID_PASSWORD');
  });
});
