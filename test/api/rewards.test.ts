import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { advanceClock, clock } from '#lib/clock.ts';
import { startTestRuntime, type HttpClient, type TestRuntime } from '../support/runtime.ts';
import { feeOf } from '../support/fees.ts';
import { signedInUser } from './identity-helpers.ts';

/**
 * /api/rewards end to end over HTTP against the local runtime, with one-hour epochs
 * (REWARDS_EPOCH_SECONDS=3600) so the test can move the clock past an epoch's end. Points come
 * from real compression and swap transactions on the local chain A; the claim pays the reward
 * token there, and its proof is checked here against the published root with this file's own
 * SHA-256 code.
 */
const EPOCH_MS = 3_600_000;
let rt: TestRuntime;
let alice: HttpClient;
let bob: HttpClient;
let aliceUser: Awaited<ReturnType<typeof signedInUser>>;
let aliceWallet: { id: string; address: string };
let bobWallet: { id: string; address: string };

const ok = (res: { status: number; json: unknown }, status = 200) => {
  expect(res.status, JSON.stringify(res.json)).toBe(status);
  return res.json as Record<string, any>;
};

const sha256 = (...parts: Buffer[]) => createHash('sha256').update(Buffer.concat(parts)).digest();
function leaf(account: string, amount: bigint) {
  const n = Buffer.alloc(8);
  n.writeBigUInt64BE(amount);
  return sha256(Buffer.from([0]), Buffer.from(account, 'hex'), n);
}
function rootFrom(l: Buffer, proof: string[]) {
  let h = l;
  for (const p of proof) {
    const s = Buffer.from(p, 'hex');
    h = Buffer.compare(h, s) <= 0 ? sha256(Buffer.from([1]), h, s) : sha256(Buffer.from([1]), s, h);
  }
  return h.toString('hex');
}

beforeAll(async () => {
  rt = await startTestRuntime({ RATE_LIMIT_MULTIPLIER: '20', REWARDS_EPOCH_SECONDS: '3600' });
  // start a minute into an epoch (epochs start on the hour)
  advanceClock(EPOCH_MS - (clock.nowMs() % EPOCH_MS) + 60_000);
  alice = rt.client();
  bob = rt.client();
  aliceUser = await signedInUser(alice);
  await signedInUser(bob);
  aliceWallet = (await alice.post('/api/wallets', { chain: 'a', name: 'main' })).json.wallet;
  bobWallet = (await bob.post('/api/wallets', { chain: 'a', name: 'main' })).json.wallet;
  for (const [c, w] of [
    [alice, aliceWallet],
    [bob, bobWallet],
  ] as const)
    ok(await c.post(`/api/wallets/${w.id}/airdrop`, { amount: 20 }));
}, 120_000);
afterAll(async () => rt?.stop());

let epoch: number;
/** Alice's and Bob's points in the epoch: the fees their transactions paid (lib/rewards/rules.ts). */
let alicePoints: number;
let bobPoints: number;

describe('accrual', () => {
  it('the program publishes the rule and the current epoch', async () => {
    const p = ok(await rt.client().get('/api/rewards/program'));
    expect(p.epochSeconds).toBe(3600);
    expect(p.rules.map((r: { source: string }) => r.source)).toEqual(['swap', 'compression', 'shielded-deposit']);
    expect(p.rewardToken).toMatchObject({ symbol: 'SHRD', decimals: 6, perPoint: '1000000' });
    epoch = p.currentEpoch;
    expect(p.epochs[0]).toMatchObject({ epoch, status: 'open' });
  });

  it('compression and swaps accrue by the rule, once per transaction, retries included', async () => {
    const key = { headers: { 'idempotency-key': 'compress-1' } };
    const c1 = ok(await alice.post('/api/compression/compress-native', { walletId: aliceWallet.id, amount: 1.5 }, key));
    const c2 = ok(await alice.post('/api/compression/compress-native', { walletId: aliceWallet.id, amount: 1.5 }, key));
    expect(c2.txHash).toBe(c1.txHash);
    const q = ok(await alice.post('/api/swap/quote', { walletId: aliceWallet.id, from: 'SOL', to: 'sUSD', amount: 2.0005, slippageBps: 50 }));
    const s = ok(await alice.post('/api/swap/execute', { quoteId: q.quoteId }));
    const b = ok(await bob.post('/api/compression/compress-native', { walletId: bobWallet.id, amount: 0.0000005 }));

    // the accrual function other groups call, retried at once from many places with one transaction
    const { accrue } = await import('#lib/rewards/accrue.ts');
    const again = await Promise.all([1, 2, 3, 4, 5].map(() => accrue({ userId: aliceUser.user.id, source: 'swap', txHash: s.txHash })));
    expect(again.filter((a) => a.recorded)).toHaveLength(0);
    // a source transaction not yet recorded under this source, accrued from five places at once: once
    const fresh = await Promise.all([1, 2, 3, 4, 5].map(() => accrue({ userId: aliceUser.user.id, source: 'shielded-deposit', txHash: s.txHash })));
    expect(fresh.filter((a) => a.recorded)).toHaveLength(1);

    const [fc1, fs, fb] = await Promise.all([feeOf(c1.txHash), feeOf(s.txHash), feeOf(b.txHash)]);
    const ledger = ok(await alice.get('/api/rewards/ledger')).entries;
    expect(ledger).toHaveLength(3);
    expect(ledger).toEqual(
      expect.arrayContaining([
        { epoch, source: 'compression', txHash: c1.txHash, points: fc1.points, basis: fc1.fee.toString(), at: expect.any(String) },
        { epoch, source: 'swap', txHash: s.txHash, points: fs.points, basis: fs.fee.toString(), at: expect.any(String) },
        { epoch, source: 'shielded-deposit', txHash: s.txHash, points: fs.points, basis: fs.fee.toString(), at: expect.any(String) },
      ]),
    );
    // 1.5 SOL compressed earns its fee's worth, not 1,500 points; bob's 500 lamports the same as any compress
    expect(fc1.points).toBeGreaterThan(0);
    expect(fc1.points).toBeLessThan(100);
    expect(ok(await bob.get('/api/rewards/ledger')).entries).toEqual([
      { epoch, source: 'compression', txHash: b.txHash, points: fb.points, basis: fb.fee.toString(), at: expect.any(String) },
    ]);
    alicePoints = fc1.points + 2 * fs.points;
    bobPoints = fb.points;
    expect(alicePoints).toBeGreaterThan(bobPoints);
    expect(ok(await alice.get('/api/rewards/me'))).toMatchObject({ epoch, points: alicePoints, rank: 1, claimable: [] });
    expect(ok(await bob.get('/api/rewards/me'))).toMatchObject({ epoch, points: bobPoints, rank: 2 });
  });

  it('the leaderboard shows pseudonyms and points only', async () => {
    const board = ok(await rt.client().get(`/api/rewards/leaderboard?epoch=${epoch}`));
    expect(board.entries).toEqual([
      { rank: 1, pseudonym: expect.stringMatching(/^anon-[0-9a-f]{10}$/), points: alicePoints },
      { rank: 2, pseudonym: expect.stringMatching(/^anon-[0-9a-f]{10}$/), points: bobPoints },
    ]);
    const text = JSON.stringify(board);
    for (const secret of [aliceUser.username, aliceUser.user.id, aliceWallet.address, bobWallet.address]) expect(text).not.toContain(secret);
    expect(ok(await rt.client().get('/api/rewards/leaderboard?epoch=nope'), 400).error).toBe('INVALID_INPUT');
  });
});

describe('epoch close and claim', () => {
  it('an open epoch cannot be claimed', async () => {
    expect(ok(await alice.post('/api/rewards/claim', { epoch, walletId: aliceWallet.id }), 409).error).toBe('EPOCH_OPEN');
  });

  it('after the epoch ends: the root is published, the claim pays once and its proof gives the root', async () => {
    advanceClock(EPOCH_MS - (clock.nowMs() % EPOCH_MS) + 10_000);
    // ten seconds after the end, within the grace minute: still not claimable
    expect(ok(await alice.post('/api/rewards/claim', { epoch, walletId: aliceWallet.id }), 409).error).toBe('EPOCH_OPEN');
    advanceClock(60_000);
    const c = ok(await alice.post('/api/rewards/claim', { epoch, walletId: aliceWallet.id }));
    const amount = `${alicePoints}000000`;
    expect(c).toMatchObject({ epoch, walletId: aliceWallet.id, address: aliceWallet.address, points: alicePoints, amount, txHash: expect.any(String) });
    const published = ok(await rt.client().get('/api/rewards/program')).epochs.find((e: { epoch: number }) => e.epoch === epoch);
    expect(published).toMatchObject({ status: 'closed', root: c.root, accounts: 2, totalPoints: alicePoints + bobPoints });
    const l = leaf(c.leaf.account, BigInt(alicePoints));
    expect(c.leaf.hash).toBe(l.toString('hex'));
    expect(rootFrom(l, c.proof)).toBe(published.root);
    // a leaf with another amount does not verify
    expect(rootFrom(leaf(c.leaf.account, BigInt(alicePoints + 1)), c.proof)).not.toBe(published.root);
    expect(ok(await alice.get(`/api/wallets/${aliceWallet.id}/balance?mint=${c.mint}`)).balance).toBe(amount);

    // double claims: again, at once, to another wallet — all refused, nothing more paid
    const other = ok(await alice.post('/api/wallets', { chain: 'a', name: 'second' }), 201).wallet;
    const again = await Promise.all([aliceWallet.id, other.id].map((walletId) => alice.post('/api/rewards/claim', { epoch, walletId })));
    for (const r of again) expect([r.status, r.json.error]).toEqual([409, 'ALREADY_CLAIMED']);
    expect(ok(await alice.get(`/api/wallets/${aliceWallet.id}/balance?mint=${c.mint}`)).balance).toBe(amount);
    expect(ok(await alice.get('/api/rewards/me')).claimable).toEqual([{ epoch, points: alicePoints, amount, claimed: true }]);

    // bob's claim proves against the same root; he cannot use alice's wallet
    expect(ok(await bob.post('/api/rewards/claim', { epoch, walletId: aliceWallet.id }), 404).error).toBe('WALLET_NOT_FOUND');
    const bc = ok(await bob.post('/api/rewards/claim', { epoch, walletId: bobWallet.id }));
    expect(rootFrom(leaf(bc.leaf.account, BigInt(bobPoints)), bc.proof)).toBe(published.root);
    expect(bc.leaf.account).not.toBe(c.leaf.account);
  });

  it('accruals after the close go to the new epoch; an epoch without points has nothing to claim', async () => {
    const x = ok(await alice.post('/api/compression/compress-native', { walletId: aliceWallet.id, amount: 0.002 }));
    const entry = ok(await alice.get('/api/rewards/ledger')).entries.find((e: { txHash: string }) => e.txHash === x.txHash);
    expect(entry).toMatchObject({ epoch: epoch + 1, points: (await feeOf(x.txHash)).points });
    expect(ok(await alice.post('/api/rewards/claim', { epoch: epoch - 1, walletId: aliceWallet.id }), 404).error).toBe('NOT_FOUND');
    expect(ok(await alice.post('/api/rewards/claim', { epoch: 'x', walletId: aliceWallet.id }), 400).error).toBe('INVALID_INPUT');
  });
});
