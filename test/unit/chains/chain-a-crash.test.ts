import { spawn } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Keypair, PublicKey } from '@solana/web3.js';
import { afterAll, describe, expect, it } from 'vitest';
import { LocalChainA } from '#lib/local/chain-a/chain.ts';
import { ChainStore } from '#lib/local/chain-a/store.ts';
import * as ops from '#lib/chains/chain-a/operations.ts';

/**
 * The embedded chain A killed with SIGKILL after its changes were answered (their log lines
 * written) and before a snapshot covered them: a new process on the same DATA_DIR loads the last
 * snapshot, runs the log after it again, and holds the same balances, accounts and signatures as
 * the process that died — and keeps working.
 */
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

interface ChildState {
  alice: string;
  aliceSecret: string;
  bob: string;
  mint: string;
  placed: string;
  placedData: string;
  signatures: string[];
  balances: Record<'alice' | 'bob', Record<string, string>>;
  slot: number;
}

/**
 * Runs test/support/chain-a-child.ts until it prints its state, then kills it (no shutdown hook
 * runs). While it lives, this process cannot open its chain: one process per chain.
 */
function runAndKill(dir: string, snapshotEvery: number): Promise<ChildState> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, '../../support/chain-a-child.ts'), dir, String(snapshotEvery)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  return new Promise((ok, fail) => {
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (!out.includes('\n')) return;
      expect(() => ChainStore.load(join(dir, 'chain-a'), snapshotEvery)).toThrow(`is run by process ${child.pid}`);
      child.kill('SIGKILL');
      child.on('exit', () => ok(JSON.parse(out) as ChildState));
    });
    child.on('exit', (code, signal) => {
      if (signal !== 'SIGKILL') fail(new Error(`child exited ${code}: ${err}`));
    });
  });
}

async function balances(chain: LocalChainA, owner: PublicKey, mint: PublicKey) {
  return {
    native: String(await ops.nativeBalance(chain, owner)),
    compressed: String(await ops.compressedNativeBalance(chain, owner)),
    token: String(await ops.tokenBalance(chain, owner, mint)),
    compressedToken: String(await ops.compressedTokenBalance(chain, owner, mint)),
  };
}

async function expectSame(dir: string, died: ChildState) {
  const chain = await LocalChainA.open(dir);
  const mint = new PublicKey(died.mint);
  expect(await balances(chain, new PublicKey(died.alice), mint)).toEqual(died.balances.alice);
  expect(await balances(chain, new PublicKey(died.bob), mint)).toEqual(died.balances.bob);
  expect((await chain.rpc.getAccountInfo(new PublicKey(died.placed)))!.data.toString('base64')).toBe(died.placedData);
  const statuses = await chain.rpc.getSignatureStatuses(died.signatures);
  expect(statuses.value.every((s) => s?.confirmationStatus === 'confirmed')).toBe(true);
  expect(await chain.rpc.getSlot()).toBe(died.slot);
  // and it keeps working on that state
  const alice = Keypair.fromSecretKey(Buffer.from(died.aliceSecret, 'base64'));
  await ops.compressNative(chain, alice, 1n);
  expect(await ops.compressedNativeBalance(chain, alice.publicKey)).toBe(BigInt(died.balances.alice.compressed!) + 1n);
  await chain.close();
  return chain;
}

describe('chain A, local: a crash between the log append and the snapshot', () => {
  it('every change after the only snapshot (genesis) is run again from the log', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'shroud-chaina-crash-'));
    dirs.push(dir);
    const died = await runAndKill(dir, 100_000);
    const { stored } = ChainStore.load(join(dir, 'chain-a'), 100_000);
    expect(stored.applied).toBe(0);
    expect(stored.records.length).toBeGreaterThanOrEqual(15);
    await expectSame(dir, died);
    // the reopened process snapshotted what it rebuilt: the next start runs nothing again
    expect(ChainStore.load(join(dir, 'chain-a'), 100_000).stored.applied).toBeGreaterThanOrEqual(stored.records.length);
  }, 120_000);

  it('with snapshots along the way, the lines after the last one are run again; a line cut short is dropped', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'shroud-chaina-crash-'));
    dirs.push(dir);
    // The child makes 16 changes: snapshots at 7 and 14 leave two lines after the last one, whether
    // or not a queued snapshot finishes before the kill (with 4, the one at 16 sometimes did).
    const died = await runAndKill(dir, 7);
    const { stored } = ChainStore.load(join(dir, 'chain-a'), 7);
    expect(stored.applied).toBeGreaterThan(0);
    expect(stored.applied).toBeLessThan(stored.records.length);
    // a write the kill cut short: a line without its newline
    const log = join(dir, 'chain-a', 'log.jsonl');
    appendFileSync(log, '{"k":"tx","tx":"AQID');
    await expectSame(dir, died);
    expect(readFileSync(log, 'utf8').endsWith('\n')).toBe(true);
  }, 120_000);
});
