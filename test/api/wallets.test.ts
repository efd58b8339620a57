import { Keypair } from '@solana/web3.js';
import bs58 from 'bs58';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { advanceClock } from '#lib/clock.ts';
import { startTestRuntime, type HttpClient, type TestRuntime } from '../support/runtime.ts';
import { signedInUser } from './identity-helpers.ts';

/** /api/wallets over HTTP against the local runtime (DynamoDB Local, the local chain A). */
let rt: TestRuntime;
let alice: HttpClient;
let bob: HttpClient;

beforeAll(async () => {
  rt = await startTestRuntime({ RATE_LIMIT_MULTIPLIER: '20' });
  alice = rt.client();
  bob = rt.client();
  await signedInUser(alice);
  await signedInUser(bob);
});
afterAll(async () => rt?.stop());
beforeEach(() => advanceClock(61_000));

const patch = (c: HttpClient, path: string, json: unknown) => c.request('PATCH', path, { json });

describe('wallets', () => {
  it('creates chain A and chain B wallets; the first on a chain is active; the key is never returned', async () => {
    const a = await alice.post('/api/wallets', { chain: 'a', name: 'main' });
    expect(a.status, JSON.stringify(a.json)).toBe(201);
    expect(a.json).toEqual({
      success: true,
      wallet: {
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        chain: 'a',
        name: 'main',
        address: expect.stringMatching(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/),
        isActive: true,
        createdAt: expect.any(String),
      },
    });
    const b = await alice.post('/api/wallets', { chain: 'b', name: 'main', password: 'chain-b-pass' });
    expect(b.status).toBe(201);
    expect(b.json.wallet).toMatchObject({ chain: 'b', isActive: true, address: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
    const second = await alice.post('/api/wallets', { chain: 'a', name: 'second' });
    expect(second.json.wallet.isActive).toBe(false);
    const text = JSON.stringify([a.json, b.json, second.json]);
    expect(text).not.toMatch(/secret|sealed|ciphertext|dataKey/i);
  });

  it('validates: chain B needs a password of 8+, names are unique per user and chain', async () => {
    expect((await alice.post('/api/wallets', { chain: 'b', name: 'nopass' })).json).toMatchObject({
      error: 'INVALID_INPUT',
      message: expect.stringContaining('password'),
    });
    expect((await alice.post('/api/wallets', { chain: 'b', name: 'short', password: 'short' })).status).toBe(400);
    expect((await alice.post('/api/wallets', { chain: 'c', name: 'x' })).json.error).toBe('INVALID_INPUT');
    expect((await alice.post('/api/wallets', { chain: 'a', name: '' })).status).toBe(400);
    await alice.post('/api/wallets', { chain: 'a', name: 'Unique' });
    const dup = await alice.post('/api/wallets', { chain: 'a', name: 'unique' });
    expect(dup.status).toBe(409);
    // the same name on the other chain, or for another user, is fine
    expect((await alice.post('/api/wallets', { chain: 'b', name: 'unique', password: 'chain-b-pass' })).status).toBe(201);
    expect((await bob.post('/api/wallets', { chain: 'a', name: 'unique' })).status).toBe(201);
  });

  it('imports a chain A key (base58 or JSON bytes) once; a malformed key is 400', async () => {
    const kp = Keypair.generate();
    const imported = await alice.post('/api/wallets/import', { chain: 'a', name: 'imported', secretKey: bs58.encode(kp.secretKey) });
    expect(imported.status, JSON.stringify(imported.json)).toBe(201);
    expect(imported.json.wallet.address).toBe(kp.publicKey.toBase58());
    const again = await alice.post('/api/wallets/import', { chain: 'a', name: 'again', secretKey: JSON.stringify([...kp.secretKey]) });
    expect(again.status).toBe(409);
    // another user may hold the same key
    expect((await bob.post('/api/wallets/import', { chain: 'a', name: 'imported', secretKey: bs58.encode(kp.secretKey) })).status).toBe(201);
    const bad = await alice.post('/api/wallets/import', { chain: 'a', name: 'bad', secretKey: 'xyz' });
    expect(bad.json).toMatchObject({ error: 'INVALID_INPUT', message: expect.stringContaining('secretKey') });
    const badB = await alice.post('/api/wallets/import', { chain: 'b', name: 'bad', secretKey: '0x0', password: 'chain-b-pass' });
    expect(badB.json.error).toBe('INVALID_INPUT');
    const okB = await alice.post('/api/wallets/import', { chain: 'b', name: 'imported', secretKey: '0x1234abcd', password: 'chain-b-pass' });
    expect(okB.status).toBe(201);
  });

  it('lists (optionally by chain), reads, renames, switches the active wallet, deletes', async () => {
    const c = rt.client();
    await signedInUser(c);
    const w1 = (await c.post('/api/wallets', { chain: 'a', name: 'one' })).json.wallet;
    const w2 = (await c.post('/api/wallets', { chain: 'a', name: 'two' })).json.wallet;
    await c.post('/api/wallets', { chain: 'b', name: 'bee', password: 'chain-b-pass' });
    expect((await c.get('/api/wallets')).json.wallets).toHaveLength(3);
    expect((await c.get('/api/wallets?chain=a')).json.wallets.map((w: { name: string }) => w.name)).toEqual(['one', 'two']);
    expect((await c.get('/api/wallets?chain=z')).status).toBe(400);
    expect((await c.get(`/api/wallets/${w2.id}`)).json.wallet).toMatchObject({ id: w2.id, isActive: false });

    const renamed = await patch(c, `/api/wallets/${w2.id}`, { name: 'deux', isActive: true });
    expect(renamed.status, JSON.stringify(renamed.json)).toBe(200);
    expect(renamed.json.wallet).toMatchObject({ name: 'deux', isActive: true });
    const list = (await c.get('/api/wallets?chain=a')).json.wallets as { id: string; isActive: boolean }[];
    expect(list.filter((w) => w.isActive).map((w) => w.id)).toEqual([w2.id]); // one active per chain
    expect((await patch(c, `/api/wallets/${w1.id}`, { name: 'deux' })).status).toBe(409);
    // the old name is free again
    expect((await c.post('/api/wallets', { chain: 'a', name: 'two' })).status).toBe(201);

    const del = await c.delete(`/api/wallets/${w1.id}`);
    expect(del.json).toEqual({ success: true, deleted: true });
    expect((await c.get(`/api/wallets/${w1.id}`)).json.error).toBe('WALLET_NOT_FOUND');
    expect((await c.post('/api/wallets', { chain: 'a', name: 'one' })).status).toBe(201);
  });

  it("someone else's wallet, or an unknown id, is 404 WALLET_NOT_FOUND everywhere", async () => {
    const mine = (await alice.post('/api/wallets', { chain: 'a', name: 'private' })).json.wallet;
    for (const id of [mine.id, '00000000-0000-4000-8000-000000000000', 'not-a-uuid']) {
      for (const res of [
        await bob.get(`/api/wallets/${id}`),
        await patch(bob, `/api/wallets/${id}`, { name: 'taken' }),
        await bob.delete(`/api/wallets/${id}`),
        await bob.get(`/api/wallets/${id}/balance`),
        await bob.post(`/api/wallets/${id}/airdrop`, { amount: 1 }),
      ]) {
        expect(res.status, `${id} ${JSON.stringify(res.json)}`).toBe(404);
        expect(res.json.error).toBe('WALLET_NOT_FOUND');
      }
    }
    expect((await alice.get(`/api/wallets/${mine.id}`)).status).toBe(200); // untouched
  });

  it('airdrops test coins on localnet and shows the ordinary balance exactly', async () => {
    const w = (await alice.post('/api/wallets', { chain: 'a', name: 'funded' })).json.wallet;
    expect((await alice.get(`/api/wallets/${w.id}/balance`)).json).toEqual({ success: true, address: w.address, balance: '0', formatted: '0', decimals: 9 });
    const drop = await alice.post(`/api/wallets/${w.id}/airdrop`, { amount: 1.1 });
    expect(drop.status, JSON.stringify(drop.json)).toBe(200);
    expect(drop.json).toMatchObject({ txHash: expect.stringMatching(/^[1-9A-HJ-NP-Za-km-z]{64,90}$/), amount: '1100000000', formatted: '1.1' });
    expect((await alice.get(`/api/wallets/${w.id}/balance`)).json).toMatchObject({ balance: '1100000000', formatted: '1.1', decimals: 9 });
    for (const amount of [0, -1, 1.0000000001, '1', 1000]) {
      expect((await alice.post(`/api/wallets/${w.id}/airdrop`, { amount })).json.error, String(amount)).toBe('INVALID_INPUT');
    }
    expect((await alice.get(`/api/wallets/${w.id}/balance?mint=nope`)).json.error).toBe('INVALID_INPUT');
    expect((await alice.get(`/api/wallets/${w.id}/balance?mint=${Keypair.generate().publicKey.toBase58()}`)).json.error).toBe('INVALID_MINT');
  });

  it("signs with the wallet's own key: a compression of 1.5 lands, the coins leave the wallet and show compressed", async () => {
    const w = (await alice.post('/api/wallets', { chain: 'a', name: 'signer' })).json.wallet;
    expect((await alice.post(`/api/wallets/${w.id}/airdrop`, { amount: 2 })).status).toBe(200);
    const c = await alice.post('/api/compression/compress-native', { walletId: w.id, amount: 1.5 });
    expect(c.status, JSON.stringify(c.json)).toBe(200);
    expect(c.json).toMatchObject({ success: true, txHash: expect.stringMatching(/^[1-9A-HJ-NP-Za-km-z]{64,90}$/), compressedAmount: '1500000000' });
    expect((await alice.get(`/api/compression/compressed-balance/${w.id}`)).json).toMatchObject({ balance: '1500000000', formatted: '1.5' });
    const paid = 500_000_000n - BigInt((await alice.get(`/api/wallets/${w.id}/balance`)).json.balance);
    expect(paid).toBeGreaterThan(0n); // the fees, paid by the wallet that signed
    expect(paid).toBeLessThan(100_000n);
    // a second wallet with nothing cannot sign its way to coins: the chain refuses, nothing moves
    const poor = (await alice.post('/api/wallets', { chain: 'a', name: 'unfunded' })).json.wallet;
    expect((await alice.post('/api/compression/compress-native', { walletId: poor.id, amount: 0.001 })).json.error).toBe('INSUFFICIENT_BALANCE');
  });

  it('requires a session', async () => {
    expect((await rt.client().get('/api/wallets')).status).toBe(401);
    expect((await rt.client().post('/api/wallets', { chain: 'a', name: 'x' })).status).toBe(401);
  });
});
