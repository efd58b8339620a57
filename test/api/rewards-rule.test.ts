import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { advanceClock, clock } from '#lib/clock.ts';
import { feeOf } from '../support/fees.ts';
import { startTestRuntime, type HttpClient, type TestRuntime } from '../support/runtime.ts';
import { signedInUser } from './identity-helpers.ts';

/**
 * Issue 36, 6: points count what the user paid (the fee of each source transaction its own wallet
 * paid), never the volume moved. The loop that earned 294,000 points for 60,003 lamports of fees
 * earns what those fees earn; compressing 1 lamport earns its fee's worth, not a point for the
 * lamport; a compressed transfer to oneself earns nothing.
 */
const EPOCH_MS = 3_600_000;
let rt: TestRuntime;
let alice: HttpClient;
let wallet: { id: string; address: string };
let second: { id: string; address: string };

const ok = (res: { status: number; json: unknown }, status = 200) => {
  expect(res.status, JSON.stringify(res.json)).toBe(status);
  return res.json as Record<string, any>;
};
const ledger = async () => ok(await alice.get('/api/rewards/ledger')).entries as { source: string; txHash: string; points: number; basis: string }[];

beforeAll(async () => {
  rt = await startTestRuntime({ RATE_LIMIT_MULTIPLIER: '20', REWARDS_EPOCH_SECONDS: '3600' });
  advanceClock(EPOCH_MS - (clock.nowMs() % EPOCH_MS) + 60_000);
  alice = rt.client();
  await signedInUser(alice);
  wallet = ok(await alice.post('/api/wallets', { chain: 'a', name: 'main' }), 201).wallet;
  second = ok(await alice.post('/api/wallets', { chain: 'a', name: 'second' }), 201).wallet;
  for (let i = 0; i < 2; i++) ok(await alice.post(`/api/wallets/${wallet.id}/airdrop`, { amount: 60 }));
}, 120_000);
afterAll(async () => rt?.stop());

describe('points count the fees the user paid', () => {
  it('three rounds of compressing and decompressing 49 SOL earn no more than their fees', async () => {
    const txs: string[] = [];
    for (let round = 0; round < 3; round++) {
      txs.push(ok(await alice.post('/api/compression/compress-native', { walletId: wallet.id, amount: 49 })).txHash);
      txs.push(ok(await alice.post('/api/compression/decompress-native', { walletId: wallet.id, amount: 49 })).txHash);
    }
    const fees = await Promise.all(txs.map(feeOf));
    const paid = fees.reduce((sum, f) => sum + f.fee, 0n);
    const entries = (await ledger()).filter((e) => txs.includes(e.txHash));
    const points = entries.reduce((sum, e) => sum + e.points, 0);
    // Each entry is its own transaction's fee, 1 point per 1,000 lamports.
    for (const e of entries)
      expect(e).toMatchObject({ source: 'compression', basis: fees[txs.indexOf(e.txHash)]!.fee.toString(), points: fees[txs.indexOf(e.txHash)]!.points });
    expect(paid).toBeGreaterThan(0n);
    expect(points).toBeGreaterThan(0);
    expect(BigInt(points) * 1000n).toBeLessThanOrEqual(paid);
    expect(points).toBeLessThan(100); // was 294,000
  });

  it("compressing 1 lamport earns its fee's worth, not a point for the lamport", async () => {
    const before = ok(await alice.get('/api/rewards/me')).points as number;
    const tx = ok(await alice.post('/api/compression/compress-native', { walletId: wallet.id, amount: 0.000000001 })).txHash;
    const { fee, points } = await feeOf(tx);
    expect((await ledger()).filter((e) => e.txHash === tx)).toEqual([expect.objectContaining({ source: 'compression', points, basis: fee.toString() })]);
    expect(ok(await alice.get('/api/rewards/me')).points - before).toBe(points);
    expect(points).toBeGreaterThan(0);
    expect(BigInt(points) * 1000n).toBeLessThanOrEqual(fee);
  });

  it("a compressed transfer to oneself earns nothing; to someone else, its fee's worth", async () => {
    const mint = ok(await alice.post('/api/compression/create-token', { walletId: wallet.id, decimals: 6 })).mintAddress as string;
    ok(await alice.post('/api/compression/mint-to', { walletId: wallet.id, mint, amount: 100 }));
    ok(await alice.post('/api/compression/compress-token', { walletId: wallet.id, mint, amount: 10 }));
    const toSelf = ok(await alice.post('/api/compression/transfer', { walletId: wallet.id, mint, to: wallet.address, amount: 1 })).txHash;
    const toOwn = ok(await alice.post('/api/compression/transfer', { walletId: wallet.id, mint, to: second.address, amount: 1 })).txHash;
    const bob = rt.client();
    await signedInUser(bob);
    const bobWallet = ok(await bob.post('/api/wallets', { chain: 'a', name: 'main' }), 201).wallet;
    const toBob = ok(await alice.post('/api/compression/transfer', { walletId: wallet.id, mint, to: bobWallet.address, amount: 1 })).txHash;
    await new Promise((r) => setTimeout(r, 500));
    const entries = await ledger();
    expect(entries.filter((e) => e.txHash === toSelf || e.txHash === toOwn)).toEqual([]);
    expect(entries.filter((e) => e.txHash === toBob)).toEqual([expect.objectContaining({ source: 'compression', points: (await feeOf(toBob)).points })]);
  });
});
