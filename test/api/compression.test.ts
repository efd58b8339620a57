import { Keypair } from '@solana/web3.js';
import { beforeAll, describe, expect, it } from 'vitest';
import type { HttpClient } from '../support/runtime.ts';
import { runtimeWithUsers } from './runtime-with-users.ts';

/**
 * /api/compression end to end over HTTP against the local runtime: every transaction is built by
 * Light Protocol's SDKs, signed with the wallet's key and executed by Light's programs in LiteSVM.
 */
let alice: HttpClient;
let bob: HttpClient;
let aliceWallet: { id: string; address: string };
let bobWallet: { id: string; address: string };

const world = runtimeWithUsers({ RATE_LIMIT_MULTIPLIER: '20' }, ['alice', 'bob'], { fresh: true });
beforeAll(async () => {
  alice = world.users.alice.client;
  bob = world.users.bob.client;
  aliceWallet = (await alice.post('/api/wallets', { chain: 'a', name: 'main' })).json.wallet;
  bobWallet = (await bob.post('/api/wallets', { chain: 'a', name: 'main' })).json.wallet;
  const drop = await alice.post(`/api/wallets/${aliceWallet.id}/airdrop`, { amount: 10 });
  if (drop.status !== 200) throw new Error(JSON.stringify(drop.json));
});

const ok = (res: { status: number; json: unknown }, status = 200) => {
  expect(res.status, JSON.stringify(res.json)).toBe(status);
  return res.json as Record<string, string & number>;
};
const lamports = async (c: HttpClient, id: string) => BigInt((await c.get(`/api/wallets/${id}/balance`)).json.balance);

describe('compression of the native coin', () => {
  it('compresses 1.5, shows 1500000000 / "1.5", decompresses 0.4', async () => {
    const before = await lamports(alice, aliceWallet.id);
    const c = ok(await alice.post('/api/compression/compress-native', { walletId: aliceWallet.id, amount: 1.5 }));
    expect(c).toEqual({ success: true, txHash: expect.stringMatching(/^[1-9A-HJ-NP-Za-km-z]{64,90}$/), compressedAmount: '1500000000', decimals: 9 });
    expect(ok(await alice.get(`/api/compression/compressed-balance/${aliceWallet.id}`))).toEqual({
      success: true,
      balance: '1500000000',
      formatted: '1.5',
      decimals: 9,
    });
    const afterCompress = await lamports(alice, aliceWallet.id);
    expect(before - afterCompress - 1_500_000_000n).toBeGreaterThan(0n); // the fee
    expect(before - afterCompress - 1_500_000_000n).toBeLessThan(100_000n);

    const d = ok(await alice.post('/api/compression/decompress-native', { walletId: aliceWallet.id, amount: 0.4 }));
    expect(d).toEqual({ success: true, txHash: expect.any(String), decompressedAmount: '400000000' });
    expect(ok(await alice.get(`/api/compression/compressed-balance/${aliceWallet.id}`))).toMatchObject({ balance: '1100000000', formatted: '1.1' });
    expect(await lamports(alice, aliceWallet.id)).toBeGreaterThan(afterCompress + 399_000_000n);
  });

  it('INSUFFICIENT_BALANCE when the wallet cannot cover the amount; nothing moves', async () => {
    const r1 = await alice.post('/api/compression/decompress-native', { walletId: aliceWallet.id, amount: 5 });
    expect(r1.status).toBe(422);
    expect(r1.json.error).toBe('INSUFFICIENT_BALANCE');
    const r2 = await alice.post('/api/compression/compress-native', { walletId: aliceWallet.id, amount: 1000 });
    expect(r2.json.error).toBe('INSUFFICIENT_BALANCE');
    // bob's wallet has no coins at all: not even the fee
    const r3 = await bob.post('/api/compression/compress-native', { walletId: bobWallet.id, amount: 0.001 });
    expect(r3.json.error).toBe('INSUFFICIENT_BALANCE');
    expect(ok(await alice.get(`/api/compression/compressed-balance/${aliceWallet.id}`)).balance).toBe('1100000000');
  });

  it('INVALID_INPUT for bad amounts', async () => {
    for (const amount of [0, -1, 1.0000000001, '1.5', null, 1e30]) {
      const r = await alice.post('/api/compression/compress-native', { walletId: aliceWallet.id, amount });
      expect(r.status, String(amount)).toBe(400);
      expect(r.json.error).toBe('INVALID_INPUT');
    }
    expect((await alice.post('/api/compression/compress-native', { walletId: aliceWallet.id })).json.message).toMatch(/amount/);
  });
});

describe('compressed tokens', () => {
  let mint: string;

  it('creates a token, mints, compresses, transfers to another user and decompresses, exact balances', async () => {
    const t = ok(await alice.post('/api/compression/create-token', { walletId: aliceWallet.id, decimals: 6 }));
    expect(t).toEqual({ success: true, mintAddress: expect.stringMatching(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/), txHash: expect.any(String) });
    mint = t.mintAddress;

    expect(ok(await alice.post('/api/compression/mint-to', { walletId: aliceWallet.id, mint, amount: 100 }))).toMatchObject({
      mint,
      mintedAmount: '100000000',
    });
    expect(ok(await alice.get(`/api/wallets/${aliceWallet.id}/balance?mint=${mint}`))).toEqual({
      success: true,
      address: aliceWallet.address,
      balance: '100000000',
      formatted: '100',
      decimals: 6,
      mint,
    });

    const c = ok(await alice.post('/api/compression/compress-token', { walletId: aliceWallet.id, mint, amount: 40.5 }));
    expect(c).toEqual({ success: true, txHash: expect.any(String), mint, compressedAmount: '40500000', decimals: 6 });
    expect(ok(await alice.get(`/api/compression/compressed-token-balance/${aliceWallet.id}/${mint}`))).toEqual({
      success: true,
      mint,
      balance: '40500000',
      formatted: '40.5',
      decimals: 6,
    });

    const tr = ok(await alice.post('/api/compression/transfer', { walletId: aliceWallet.id, mint, to: bobWallet.address, amount: 12.25 }));
    expect(tr).toEqual({ success: true, txHash: expect.any(String), from: aliceWallet.address, to: bobWallet.address, amount: '12250000' });
    expect(ok(await alice.get(`/api/compression/compressed-token-balance/${aliceWallet.id}/${mint}`)).balance).toBe('28250000');
    expect(ok(await bob.get(`/api/compression/compressed-token-balance/${bobWallet.id}/${mint}`))).toMatchObject({ balance: '12250000', formatted: '12.25' });

    const d = ok(await alice.post('/api/compression/decompress-token', { walletId: aliceWallet.id, mint, amount: 8.25 }));
    expect(d).toEqual({ success: true, txHash: expect.any(String), decompressedAmount: '8250000' });
    expect(ok(await alice.get(`/api/compression/compressed-token-balance/${aliceWallet.id}/${mint}`)).balance).toBe('20000000');
    expect(ok(await alice.get(`/api/wallets/${aliceWallet.id}/balance?mint=${mint}`)).balance).toBe('67750000');
  });

  it('INVALID_MINT for a non-address and for an address that is not a mint; token errors', async () => {
    for (const bad of ['not-a-mint', Keypair.generate().publicKey.toBase58(), aliceWallet.address]) {
      const r = await alice.post('/api/compression/compress-token', { walletId: aliceWallet.id, mint: bad, amount: 1 });
      expect(r.status, bad).toBe(400);
      expect(r.json.error).toBe('INVALID_MINT');
      expect((await alice.get(`/api/compression/compressed-token-balance/${aliceWallet.id}/${bad}`)).json.error).toBe('INVALID_MINT');
    }
    expect((await alice.post('/api/compression/compress-token', { walletId: aliceWallet.id, mint, amount: 0.0000001 })).json.error).toBe('INVALID_INPUT');
    expect((await alice.post('/api/compression/transfer', { walletId: aliceWallet.id, mint, to: bobWallet.address, amount: 1000 })).json.error).toBe(
      'INSUFFICIENT_BALANCE',
    );
    expect((await alice.post('/api/compression/transfer', { walletId: aliceWallet.id, mint, to: 'nobody', amount: 1 })).json.error).toBe('INVALID_INPUT');
    expect((await alice.post('/api/compression/compress-token', { walletId: aliceWallet.id, mint, amount: 1000 })).json.error).toBe('INSUFFICIENT_BALANCE');
    // bob is not the mint authority
    expect((await bob.post('/api/compression/mint-to', { walletId: bobWallet.id, mint, amount: 1 })).status).toBe(403);
    expect((await alice.post('/api/compression/create-token', { walletId: aliceWallet.id, decimals: 1.5 })).json.error).toBe('INVALID_INPUT');
  });

  it("another user's wallet is refused with 404 and nothing moves", async () => {
    const before = ok(await alice.get(`/api/compression/compressed-token-balance/${aliceWallet.id}/${mint}`)).balance;
    const calls = [
      bob.post('/api/compression/compress-native', { walletId: aliceWallet.id, amount: 0.1 }),
      bob.post('/api/compression/decompress-native', { walletId: aliceWallet.id, amount: 0.1 }),
      bob.post('/api/compression/compress-token', { walletId: aliceWallet.id, mint, amount: 1 }),
      bob.post('/api/compression/decompress-token', { walletId: aliceWallet.id, mint, amount: 1 }),
      bob.post('/api/compression/transfer', { walletId: aliceWallet.id, mint, to: bobWallet.address, amount: 1 }),
      bob.post('/api/compression/create-token', { walletId: aliceWallet.id, decimals: 2 }),
      bob.post('/api/compression/mint-to', { walletId: aliceWallet.id, mint, amount: 1 }),
      bob.get(`/api/compression/compressed-balance/${aliceWallet.id}`),
      bob.get(`/api/compression/compressed-token-balance/${aliceWallet.id}/${mint}`),
    ];
    for (const r of await Promise.all(calls)) {
      expect(r.status).toBe(404);
      expect(r.json.error).toBe('WALLET_NOT_FOUND');
    }
    expect(ok(await alice.get(`/api/compression/compressed-token-balance/${aliceWallet.id}/${mint}`)).balance).toBe(before);
  });
});

describe('the per-wallet lock', () => {
  it('parallel requests on one wallet: each succeeds or answers WALLET_LOCKED; the balance is the sum of the successes', async () => {
    const w = (await alice.post('/api/wallets', { chain: 'a', name: 'busy' })).json.wallet;
    ok(await alice.post(`/api/wallets/${w.id}/airdrop`, { amount: 5 }));
    const results = await Promise.all(Array.from({ length: 8 }, () => alice.post('/api/compression/compress-native', { walletId: w.id, amount: 0.01 })));
    const succeeded = results.filter((r) => r.status === 200);
    const locked = results.filter((r) => r.status === 409);
    expect(succeeded.length + locked.length).toBe(results.length);
    expect(succeeded.length).toBeGreaterThanOrEqual(1);
    for (const r of locked) expect(r.json.error).toBe('WALLET_LOCKED');
    expect(new Set(succeeded.map((r) => r.json.txHash)).size).toBe(succeeded.length);
    const balance = ok(await alice.get(`/api/compression/compressed-balance/${w.id}`)).balance;
    expect(balance).toBe(String(10_000_000n * BigInt(succeeded.length)));
  });

  it('different wallets do not lock each other: parallel requests on several wallets all succeed', async () => {
    const wallets = [];
    for (let i = 0; i < 4; i++) {
      const w = (await alice.post('/api/wallets', { chain: 'a', name: `parallel-${i}` })).json.wallet;
      ok(await alice.post(`/api/wallets/${w.id}/airdrop`, { amount: 1 }));
      wallets.push(w);
    }
    const results = await Promise.all(wallets.map((w) => alice.post('/api/compression/compress-native', { walletId: w.id, amount: 0.25 })));
    for (const r of results) ok(r);
    for (const w of wallets) expect(ok(await alice.get(`/api/compression/compressed-balance/${w.id}`)).balance).toBe('250000000');
  });

  it('Idempotency-Key: a retried compress-native gets the first answer and moves the coins once', async () => {
    const w = (await alice.post('/api/wallets', { chain: 'a', name: 'idempotent' })).json.wallet;
    ok(await alice.post(`/api/wallets/${w.id}/airdrop`, { amount: 1 }));
    const headers = { 'idempotency-key': `compress-${w.id}` };
    const first = ok(await alice.post('/api/compression/compress-native', { walletId: w.id, amount: 0.3 }, { headers }));
    const retry = await alice.post('/api/compression/compress-native', { walletId: w.id, amount: 0.3 }, { headers });
    expect(ok(retry)).toEqual(first);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(ok(await alice.get(`/api/compression/compressed-balance/${w.id}`)).balance).toBe('300000000');
  });
});
