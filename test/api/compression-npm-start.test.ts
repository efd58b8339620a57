/**
 * Issue 12 against the real `npm start`, restarted: a wallet's ordinary and compressed balances,
 * its tokens, and the wallet itself are all still there after the process stops and starts again
 * on the same DATA_DIR (DynamoDB Local's files and the chain's snapshot under DATA_DIR/chain-a).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { HttpClient } from '../support/runtime.ts';
import { npmStart } from '../support/npm-start.ts';
import { newIdentity, PASSWORD, uniqueName } from './identity-helpers.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'shroud-e2e-chaina-'));
let server: Awaited<ReturnType<typeof npmStart>> | undefined;
afterAll(async () => {
  await server?.stop();
  expect(server?.leftovers() ?? []).toEqual([]);
  rmSync(dataDir, { recursive: true, force: true });
});

describe('npm start keeps chain A across a restart', () => {
  it('airdrop, compress, token → restart → the same balances, and the wallet still signs', { timeout: 300_000 }, async () => {
    server = await npmStart(dataDir);
    let http = new HttpClient(server.url);
    const username = uniqueName();
    const { encrypted } = await newIdentity();
    expect((await http.post('/api/auth/register', { username, password: PASSWORD, ...encrypted })).status).toBe(201);
    expect((await http.post('/api/auth/login', { username, password: PASSWORD })).status).toBe(200);
    const wallet = (await http.post('/api/wallets', { chain: 'a', name: 'main' })).json.wallet;
    expect((await http.post(`/api/wallets/${wallet.id}/airdrop`, { amount: 3 })).status).toBe(200);
    expect((await http.post('/api/compression/compress-native', { walletId: wallet.id, amount: 1.5 })).json.compressedAmount).toBe('1500000000');
    const mint = (await http.post('/api/compression/create-token', { walletId: wallet.id, decimals: 2 })).json.mintAddress;
    expect((await http.post('/api/compression/mint-to', { walletId: wallet.id, mint, amount: 10 })).status).toBe(200);
    expect((await http.post('/api/compression/compress-token', { walletId: wallet.id, mint, amount: 2.5 })).status).toBe(200);
    const before = {
      native: (await http.get(`/api/wallets/${wallet.id}/balance`)).json.balance,
      compressed: (await http.get(`/api/compression/compressed-balance/${wallet.id}`)).json.balance,
      token: (await http.get(`/api/wallets/${wallet.id}/balance?mint=${mint}`)).json.balance,
      compressedToken: (await http.get(`/api/compression/compressed-token-balance/${wallet.id}/${mint}`)).json.balance,
    };
    expect(before).toMatchObject({ compressed: '1500000000', token: '750', compressedToken: '250' });

    await server.stop();
    server = await npmStart(dataDir);
    http = new HttpClient(server.url);
    expect((await http.post('/api/auth/login', { username, password: PASSWORD })).status).toBe(200);
    const after = {
      native: (await http.get(`/api/wallets/${wallet.id}/balance`)).json.balance,
      compressed: (await http.get(`/api/compression/compressed-balance/${wallet.id}`)).json.balance,
      token: (await http.get(`/api/wallets/${wallet.id}/balance?mint=${mint}`)).json.balance,
      compressedToken: (await http.get(`/api/compression/compressed-token-balance/${wallet.id}/${mint}`)).json.balance,
    };
    expect(after).toEqual(before);
    // the key survived too: the wallet signs again on the restored chain
    expect((await http.post('/api/compression/decompress-native', { walletId: wallet.id, amount: 0.5 })).json.decompressedAmount).toBe('500000000');
    expect((await http.get(`/api/compression/compressed-balance/${wallet.id}`)).json.balance).toBe('1000000000');
  });
});
