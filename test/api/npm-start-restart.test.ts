/**
 * The real `npm start`, stopped with SIGTERM and started again on the same DATA_DIR: what was
 * written before the restart is all there after it. Three stories share the two starts (a start of
 * npm start is some 7 CPU-seconds and 20-30 s of wall time): the runtime itself (a bug report under
 * DATA_DIR), chain A (issue 12: a wallet's ordinary and compressed balances, its tokens and the
 * wallet itself, in DynamoDB Local's files and the chain's snapshot under DATA_DIR/chain-a), and
 * chain B (balances of sender and recipient after fees, the deployed account and its nonce, the
 * transactions). Each story's checks after the restart are a test of their own, after the restart's.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpClient } from '../support/runtime.ts';
import { npmStart } from '../support/npm-start.ts';
import { newIdentity, PASSWORD, uniqueName } from './identity-helpers.ts';

const portOpen = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = connect(port, '127.0.0.1');
    s.once('connect', () => (s.destroy(), resolve(true)));
    s.once('error', () => resolve(false));
  });

const dataDir = mkdtempSync(join(tmpdir(), 'shroud-e2e-restart-'));
let server: Awaited<ReturnType<typeof npmStart>> | undefined;
afterAll(async () => {
  await server?.stop();
  expect(server?.leftovers() ?? []).toEqual([]);
  rmSync(dataDir, { recursive: true, force: true });
});

/** A new account on `server`, signed in; its name, for signing in again after the restart. */
async function newAccount(http: HttpClient): Promise<string> {
  const username = uniqueName();
  const { encrypted } = await newIdentity();
  expect((await http.post('/api/auth/register', { username, password: PASSWORD, ...encrypted })).status).toBe(201);
  expect((await http.post('/api/auth/login', { username, password: PASSWORD })).status).toBe(200);
  return username;
}

async function signIn(username: string): Promise<HttpClient> {
  const http = new HttpClient(server!.url);
  expect((await http.post('/api/auth/login', { username, password: PASSWORD })).status).toBe(200);
  return http;
}

// What each story wrote before the restart, for its checks after it.
const runtime = { jar: new Map<string, string>() };
const chainA = {} as { username: string; walletId: string; mint: string; balances: Record<string, unknown> };
const chainB = {} as { username: string; from: { id: string; address: string }; to: { address: string }; txHash: string; state: Record<string, unknown> };

const chainABalances = async (http: HttpClient) => ({
  native: (await http.get(`/api/wallets/${chainA.walletId}/balance`)).json.balance,
  compressed: (await http.get(`/api/compression/compressed-balance/${chainA.walletId}`)).json.balance,
  token: (await http.get(`/api/wallets/${chainA.walletId}/balance?mint=${chainA.mint}`)).json.balance,
  compressedToken: (await http.get(`/api/compression/compressed-token-balance/${chainA.walletId}/${chainA.mint}`)).json.balance,
});
const chainBState = async (http: HttpClient) => ({
  from: (await http.get(`/api/chainb/balance/${chainB.from.address}`)).json.balance,
  to: (await http.get(`/api/chainb/balance/${chainB.to.address}`)).json.balance,
  tx: (await http.get(`/api/chainb/tx/${chainB.txHash}`)).json.transaction,
});

describe('npm start, restarted on the same DATA_DIR', () => {
  beforeAll(async () => {
    server = await npmStart(dataDir);
  }, 120_000);

  it('serves /api/init and stores a bug report', async () => {
    const client = new HttpClient(server!.url);
    const init = await client.get('/api/init');
    expect(init.status).toBe(200);
    expect(init.json.service.name).toBe('shroud');
    const created = await client.post('/api/bug-reports', { title: 'survives restarts', description: 'kept under DATA_DIR' });
    expect(created.status).toBe(201);
    for (const [k, v] of client.jar) runtime.jar.set(k, v);
  });

  it('chain A: airdrop, compress, token', { timeout: 120_000 }, async () => {
    const http = new HttpClient(server!.url);
    chainA.username = await newAccount(http);
    const wallet = (await http.post('/api/wallets', { chain: 'a', name: 'main' })).json.wallet;
    chainA.walletId = wallet.id;
    expect((await http.post(`/api/wallets/${wallet.id}/airdrop`, { amount: 3 })).status).toBe(200);
    expect((await http.post('/api/compression/compress-native', { walletId: wallet.id, amount: 1.5 })).json.compressedAmount).toBe('1500000000');
    const mint = (await http.post('/api/compression/create-token', { walletId: wallet.id, decimals: 2 })).json.mintAddress;
    chainA.mint = mint;
    expect((await http.post('/api/compression/mint-to', { walletId: wallet.id, mint, amount: 10 })).status).toBe(200);
    expect((await http.post('/api/compression/compress-token', { walletId: wallet.id, mint, amount: 2.5 })).status).toBe(200);
    chainA.balances = await chainABalances(http);
    expect(chainA.balances).toMatchObject({ compressed: '1500000000', token: '750', compressedToken: '250' });
  });

  it('chain B: airdrop, transfer', { timeout: 120_000 }, async () => {
    const http = new HttpClient(server!.url);
    chainB.username = await newAccount(http);
    const from = (await http.post('/api/wallets', { chain: 'b', name: 'from', password: 'wallet-pass-1' })).json.wallet;
    const to = (await http.post('/api/wallets', { chain: 'b', name: 'to', password: 'wallet-pass-2' })).json.wallet;
    Object.assign(chainB, { from, to });
    expect((await http.post(`/api/wallets/${from.id}/airdrop`, { amount: '2.5' })).status).toBe(200);
    const t1 = await http.post('/api/chainb/transfer', {
      walletId: from.id,
      password: 'wallet-pass-1',
      amount: '1.000000000000000003',
      recipientAddress: to.address,
    });
    expect(t1.status, JSON.stringify(t1.json)).toBe(200);
    chainB.txHash = t1.json.txHash;
    chainB.state = await chainBState(http);
    expect(chainB.state.to).toBe('1000000000000000003');
    expect(BigInt(chainB.state.from as string)).toBe(2_500_000_000_000_000_000n - 1_000_000_000_000_000_003n - BigInt(t1.json.fee));
  });

  it('stops on SIGTERM (its port closes) and starts again on the same DATA_DIR', { timeout: 300_000 }, async () => {
    const first = server!;
    await first.stop();
    expect(await portOpen(Number(new URL(first.url).port))).toBe(false);
    server = await npmStart(dataDir);
  });

  it('the bug report is still listed for its reporter', async () => {
    const again = new HttpClient(server!.url);
    for (const [k, v] of runtime.jar) again.jar.set(k, v);
    const listed = await again.get('/api/bug-reports');
    expect(listed.json.reports.map((r: { title: string }) => r.title)).toContain('survives restarts');
  });

  it('chain A: the same balances, and the wallet still signs', { timeout: 120_000 }, async () => {
    const http = await signIn(chainA.username);
    expect(await chainABalances(http)).toEqual(chainA.balances);
    // the key survived too: the wallet signs again on the restored chain
    expect((await http.post('/api/compression/decompress-native', { walletId: chainA.walletId, amount: 0.5 })).json.decompressedAmount).toBe('500000000');
    expect((await http.get(`/api/compression/compressed-balance/${chainA.walletId}`)).json.balance).toBe('1000000000');
  });

  it('chain B: the same balances, and the account transfers again with its next nonce', { timeout: 120_000 }, async () => {
    const http = await signIn(chainB.username);
    expect(await chainBState(http)).toEqual(chainB.state);
    const t2 = await http.post('/api/chainb/transfer', {
      walletId: chainB.from.id,
      password: 'wallet-pass-1',
      amount: '0.5',
      recipientAddress: chainB.to.address,
    });
    expect(t2.status, JSON.stringify(t2.json)).toBe(200);
    expect(t2.json.deployTxHash).toBeUndefined();
    expect((await http.get(`/api/chainb/tx/${t2.json.txHash}`)).json.transaction.nonce).toBe('0x2');
    expect((await http.get(`/api/chainb/balance/${chainB.to.address}`)).json.balance).toBe('1500000000000000003');
  });
});
