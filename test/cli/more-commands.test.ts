/**
 * The README's tasks that still needed a raw API call (issue 40), done with the real binary
 * (lib/cli/shroud.mjs) against the local runtime: wallets shown, renamed, made active and deleted;
 * an identity proof signed here and read back from chain B; the proof history listed, shown,
 * checked, counted, exported and pruned; an attestation revoked; the rewards ledger; a file's
 * replicas pinned and audited; the assistant's conversations listed, shown, rated and deleted;
 * an OAuth-made account upgraded to a zero-knowledge identity, its STARK proof refreshed, and a
 * provider unlink refused; an attestation checked from a file without an account; the circuits.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestRuntime, type TestRuntime } from '../support/runtime.ts';
import { shroudRunner } from './binary.ts';
import { browse } from './browse.ts';

let rt: TestRuntime;
const home = mkdtempSync(join(tmpdir(), 'shroud-more-'));

beforeAll(async () => {
  rt = await startTestRuntime({ RATE_LIMIT_MULTIPLIER: '20' });
}, 120_000);
afterAll(async () => {
  await rt?.stop();
  rmSync(home, { recursive: true, force: true });
});

const { shroud, json, live } = shroudRunner(() => rt.url, home);
const PASSWORD = 'correct horse 1';

describe('shroud: the commands that were API calls', () => {
  it('signed out, each new command gives the sign-in hint and exits 3', { timeout: 120_000 }, async () => {
    const runs = [
      ['wallet', 'rename', 'a', 'b'],
      ['proofs', 'history'],
      ['chainb', 'prove', '-p', 'x'],
      ['rewards', 'ledger'],
      ['replica', 'status', 'bafy'],
      ['conversations'],
      ['attest', 'revoke', 'x'],
      ['provider', 'unlink', 'github'],
    ];
    for (const args of runs) {
      const r = await shroud(args);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(3);
      expect(r.stderr).toContain('not signed in: sign in with `shroud login <username>`');
    }
  });

  it('register, sign in, two wallets', { timeout: 180_000 }, async () => {
    await json(['register', 'eve', '-p', PASSWORD]);
    await json(['login', 'eve', '-p', PASSWORD]);
    await json(['wallet', 'create', 'main']);
    await json(['wallet', 'create', 'spare']);
    await json(['airdrop', '5']);
  });

  it('wallet show, use, rename, delete (only with --yes)', { timeout: 120_000 }, async () => {
    expect(await json(['wallet', 'show', 'spare'])).toMatchObject({ name: 'spare', chain: 'a', isActive: false });
    const used = await shroud(['wallet', 'use', 'spare']);
    expect(used.code, used.stderr).toBe(0);
    expect(used.stdout).toMatch(/active\s+true/);
    const listed = await json(['wallets']);
    expect(listed.find((w: { name: string }) => w.name === 'main').isActive).toBe(false);
    const renamed = await shroud(['wallet', 'rename', 'spare', 'second']);
    expect(renamed.stdout).toMatch(/renamed\s+spare → second/);
    expect((await json(['wallet', 'show', 'second'])).isActive).toBe(true);
    expect((await shroud(['wallet', 'show', 'spare'])).code).toBe(4);

    const refused = await shroud(['wallet', 'delete', 'second']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--yes');
    expect((await json(['wallets'])).map((w: { name: string }) => w.name)).toContain('second');
    const deleted = await shroud(['wallet', 'delete', 'second', '--yes']);
    expect(deleted.code, deleted.stderr).toBe(0);
    expect(deleted.stdout).toMatch(/deleted second \(chain A, \S+\)/);
    const left = await json(['wallets']);
    expect(left).toHaveLength(1);
    expect(left[0]).toMatchObject({ name: 'main', isActive: true }); // the oldest left is active again
    expect((await shroud(['wallet', 'show', 'main', '--chain', 'c'])).code).toBe(2);
    expect((await shroud(['wallet', 'rename', 'main', 'MAIN'])).code).toBe(0);
    expect((await shroud(['wallet', 'rename', 'MAIN', 'main'])).code).toBe(0);
  });

  let identityProof = '';
  it('chainb prove: the identity key opens with the account password, the proof is on chain B', { timeout: 120_000 }, async () => {
    const wrong = await shroud(['chainb', 'prove', '-p', 'not the password']);
    expect(wrong.code).toBe(3);
    expect(wrong.stderr).toContain('WRONG_PASSWORD');
    const me = await json(['whoami']);
    const proved = await shroud(['chainb', 'prove'], { input: `${PASSWORD}\n` });
    expect(proved.code, proved.stderr).toBe(0);
    identityProof = proved.stdout.match(/proof\s+(\S+)/)![1]!;
    expect(proved.stdout).toContain(`shroud chainb proof ${identityProof}`);
    // the registry's owner is the service's account: its STRK balance, read like any address's
    const read = await json(['chainb', 'proof', identityProof]);
    const owner = await shroud(['chainb', 'balance', read.proof.owner]);
    expect(owner.code, owner.stderr).toBe(0);
    expect(owner.stdout).toMatch(/balance\s+[\d.]+ STRK/);
    expect((await shroud(['chainb', 'balance', 'not-an-address'])).code).toBe(2);
    expect(read.proofId).toBe(identityProof);
    expect(read.proof.proof_id).toBeTruthy();
    // public: read back without a session; the registry's time shown as a date of this century
    const anon = await shroud(['chainb', 'proof', identityProof], { configDir: join(home, 'nobody') });
    expect(anon.code, anon.stderr).toBe(0);
    expect(anon.stdout).toMatch(/at\s+20\d\d-/);
    expect(me.user.zkId).toMatch(/^did:zk:/);
    expect((await shroud(['chainb', 'proof', '00000000-0000-4000-8000-000000000000'])).code).toBe(4);
    expect((await shroud(['chainb', 'proof', 'no-such-proof'])).code).toBe(2);
  });

  it('proofs history, show, check, stats, export, rm', { timeout: 120_000 }, async () => {
    const page = await json(['proofs', 'history', '--type', 'identity']);
    const rec = page.proofs.find((p: { links: { proofId?: string } }) => p.links.proofId === identityProof);
    expect(rec).toMatchObject({ type: 'identity', action: 'accepted', result: 'valid' });
    expect((await shroud(['proofs', 'history'])).stdout).toMatch(new RegExp(`${rec.id}\\s.*identity\\s.*accepted\\s.*valid`));
    const shown = await shroud(['proofs', 'show', rec.id]);
    expect(shown.stdout).toMatch(new RegExp(`link proofId\\s+${identityProof}`));
    expect(await json(['proofs', 'check', rec.id])).toMatchObject({ valid: true });
    const stats = await json(['proofs', 'stats']);
    expect(stats.byType.identity).toBeGreaterThanOrEqual(1);
    expect((await shroud(['proofs', 'stats'])).stdout).toMatch(/identity\s.*1\s.*0\s.*1/);
    const saved = await json(['proofs', 'export', 'history.ndjson']);
    const lines = readFileSync(join(home, 'history.ndjson'), 'utf8').trim().split('\n');
    expect(saved.records).toBe(lines.length);
    expect(lines.map((l) => JSON.parse(l).id)).toContain(rec.id);
    expect((await json(['proofs', 'export', '--type', 'identity'])).map((r: { id: string }) => r.id)).toContain(rec.id);
    expect((await shroud(['proofs', 'history', '--type', 'nonsense'])).code).toBe(2);
    expect((await shroud(['proofs', 'history', '--from', 'yesterday'])).code).toBe(2);
    expect((await shroud(['proofs', 'rm', rec.id])).stdout).toContain(`deleted ${rec.id}`);
    expect((await shroud(['proofs', 'show', rec.id])).code).toBe(4);
  });

  it('attest revoke: every check of it then says revoked', { timeout: 180_000 }, async () => {
    const a = await json(['attest', 'preimage', '--secret', '5', '--scope', 'revocable']);
    const id = a.attestation.id as string;
    expect((await json(['attest', 'verify', id])).revoked).toBe(false);
    const revoked = await shroud(['attest', 'revoke', id]);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(revoked.stdout).toMatch(new RegExp(`revoked\\s+${id}`));
    expect(await json(['attest', 'verify', id])).toMatchObject({ valid: false, revoked: true });
    // someone given the attestation (what `attest … --json` printed) checks it without an account
    writeFileSync(join(home, 'attestation.json'), JSON.stringify(a));
    const theirs = await shroud(['attest', 'verify', 'attestation.json'], { configDir: join(home, 'nobody') });
    expect(theirs.code, theirs.stderr).toBe(0);
    expect(theirs.stdout).toMatch(/revoked\s+true/);
    expect((await shroud(['attest', 'verify', 'no-such-file.json'])).code).toBe(2);
    expect((await shroud(['attest', 'revoke', '00000000-0000-4000-8000-000000000000'])).code).toBe(4);
  });

  it('rewards ledger: the compress that earned the points is listed', { timeout: 120_000 }, async () => {
    const c = await json(['compress', '1']);
    const ledger = await json(['rewards', 'ledger']);
    expect(ledger.find((e: { txHash: string }) => e.txHash === c.txHash)).toMatchObject({ points: expect.any(Number) });
    expect((await shroud(['rewards', 'ledger'])).stdout).toContain(c.txHash);
  });

  it('replica pin and status, by file id or CID; a challenge gets a storage proof', { timeout: 180_000 }, async () => {
    writeFileSync(join(home, 'kept.txt'), 'kept on three targets\n'.repeat(100));
    const up = await json(['upload', 'kept.txt', '-p', 'file pass 1']);
    const pinned = await shroud(['replica', 'pin', up.id]);
    expect(pinned.code, pinned.stderr).toBe(0);
    expect(pinned.stdout).toMatch(new RegExp(`cid\\s+${up.cid}`));
    expect(pinned.stdout).toMatch(/replicas\s+3/);
    expect(pinned.stdout).toContain(`shroud replica status ${up.cid}`);
    let status = await json(['replica', 'status', up.cid]);
    for (let i = 0; i < 60 && status.status !== 'pinned'; i++) {
      await new Promise((ok) => setTimeout(ok, 500));
      status = await json(['replica', 'status', up.cid]);
    }
    expect(status.status).toBe('pinned');
    expect(status.targets.every((t: { state: string }) => t.state === 'ok')).toBe(true);
    const challenge = 'ab'.repeat(32);
    const proved = await json(['replica', 'status', up.id, '--challenge', challenge]);
    expect(proved.challenge).toBe(challenge);
    expect(proved.storageProof).toBeTruthy();
    expect((await shroud(['replica', 'status', up.cid, '--challenge', 'short'])).code).toBe(2);
    expect((await shroud(['replica', 'pin', up.cid, '--replicas', '2'])).code).toBe(2);
    expect((await shroud(['replica', 'pin', '00000000-0000-4000-8000-000000000000'])).code).toBe(2);
  });

  it('toolkit circuits lists what toolkit prove takes (no account needed)', { timeout: 60_000 }, async () => {
    const r = await shroud(['toolkit', 'circuits'], { configDir: join(home, 'nobody') });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/preimage \(default\)/);
    const out = await json(['toolkit', 'circuits']);
    expect(out.circuits.map((c: { name: string }) => c.name)).toContain('preimage');
  });

  it('a file above 4 MiB goes by the presigned URL and comes back byte-identical', { timeout: 240_000 }, async () => {
    const big = Buffer.from(Array.from({ length: 5 * 1024 * 1024 + 3 }, (_, i) => (i * 31) % 253));
    writeFileSync(join(home, 'big.bin'), big);
    // The runtime runs in this process: its S3 client shows how the data object was made. A
    // presigned upload's is a server-side copy of the staged object (if its ETag still matches).
    const { s3 } = await import('#lib/storage/s3.ts');
    const dataWrites: string[] = [];
    s3.middlewareStack.add(
      (next) => async (args) => {
        const input = args.input as { Key?: string; CopySourceIfMatch?: string };
        if (input.Key?.endsWith('/data')) dataWrites.push(input.CopySourceIfMatch ? 'copy of the staged upload' : 'write');
        return next(args);
      },
      { step: 'initialize', name: 'cliDataWrites' },
    );
    let up;
    try {
      up = await json(['upload', 'big.bin', '-p', 'file pass 2']);
    } finally {
      s3.middlewareStack.remove('cliDataWrites');
    }
    expect(dataWrites).toEqual(['copy of the staged upload']);
    expect(up.size).toBe(big.length);
    await json(['download', up.id, 'big-back.bin', '-p', 'file pass 2']);
    expect(Buffer.compare(readFileSync(join(home, 'big-back.bin')), big)).toBe(0);
  });

  it('conversations: listed, shown, an answer rated, deleted', { timeout: 120_000 }, async () => {
    const a = await json(['ask', 'how do I share a file?']);
    const list = await json(['conversations']);
    expect(list.map((c: { id: string }) => c.id)).toContain(a.conversationId);
    const shown = await shroud(['conversations', 'show', a.conversationId]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain('how do I share a file?');
    expect(shown.stdout).toContain(a.messageId);
    expect(shown.stdout).toContain(`shroud ask -c ${a.conversationId}`);
    const rated = await shroud(['feedback', 'up', a.conversationId, a.messageId, '--comment', 'clear']);
    expect(rated.code, rated.stderr).toBe(0);
    expect(rated.stdout).toContain('recorded: up');
    expect((await shroud(['feedback', 'sideways', a.conversationId, a.messageId])).code).toBe(2);
    expect((await shroud(['conversations', 'rm', a.conversationId])).code).toBe(0);
    expect((await shroud(['conversations', 'show', a.conversationId])).code).toBe(4);
  });

  it('an account made by OAuth login: upgrade gives it an identity, chainb prove then works; its only provider cannot be unlinked', {
    timeout: 180_000,
  }, async () => {
    const configDir = join(home, 'oauth');
    const run = live(['login', '--provider', 'github', 'olga', '--no-browser'], { configDir });
    const url = (await run.waitFor(/open this URL in a browser to sign in:\n {2}(\S+)\n/))[1]!;
    await browse(url);
    expect((await run.done).code).toBe(0);
    const before = await json(['whoami'], { configDir });
    expect(before.user.zkId).toBeNull();
    const up = await shroud(['upgrade', '-p', 'identity pass 1'], { configDir });
    expect(up.code, up.stderr).toBe(0);
    expect(up.stdout).toMatch(/zkId\s+did:zk:/);
    expect((await shroud(['upgrade', '-p', 'identity pass 1'], { configDir })).code).toBe(5); // it has one now
    const proved = await json(['chainb', 'prove', '-p', 'identity pass 1'], { configDir });
    // an OAuth session's STARK proof: made, then refreshed to a later expiry
    const first = await json(['proofs', 'prove'], { configDir });
    const refreshed = await shroud(['proofs', 'refresh'], { configDir });
    expect(refreshed.code, refreshed.stderr).toBe(0);
    expect(refreshed.stdout).toMatch(/expires\s+20\d\d-/);
    expect(refreshed.stdout).not.toContain(first.txHash);
    expect(proved.proofId).toBeTruthy();
    const unlink = await shroud(['provider', 'unlink', 'github'], { configDir });
    expect(unlink.code).toBe(5);
    expect(unlink.stderr).toContain('CANNOT_UNLINK');
    expect((await shroud(['provider', 'unlink', 'myspace'], { configDir })).code).toBe(2);
    // a password account has an identity from the start
    expect((await shroud(['upgrade', '-p', 'identity pass 1'])).code).toBe(5);
  });
});
