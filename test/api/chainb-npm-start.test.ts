/**
 * Chain B against the real `npm start`, restarted: balances (sender, recipient, fees), the
 * deployed account and its nonce, and the transactions are all still there after the process
 * stops and starts again on the same DATA_DIR; the wallet then signs again.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { HttpClient } from '../support/runtime.ts';
import { npmStart } from '../support/npm-start.ts';
import { newIdentity, PASSWORD, uniqueName } from './identity-helpers.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'shroud-e2e-chainb-'));
let server: Awaited<ReturnType<typeof npmStart>> | undefined;
afterAll(async () => {
  await server?.stop();
  expect(server?.leftovers() ?? []).toEqual([]);
  rmSync(dataDir, { recursive: true, force: true });
});

describe('npm start keeps chain B across a restart', () => {
  it('airdrop, transfer → restart → the same balances, and the account transfers again with its next nonce', { timeout: 300_000 }, async () => {
    server = await npmStart(dataDir);
    let http = new HttpClient(server.url);
    const username = uniqueName();
    const { encrypted } = await newIdentity();
    expect((await http.post('/api/auth/register', { username, password: PASSWORD, ...encrypted })).status).toBe(201);
    expect((await http.post('/api/auth/login', { username, password: PASSWORD })).status).toBe(200);
    const from = (await http.post('/api/wallets', { chain: 'b', name: 'from', password: 'wallet-pass-1' })).json.wallet;
    const to = (await http.post('/api/wallets', { chain: 'b', name: 'to', password: 'wallet-pass-2' })).json.wallet;
    expect((await http.post(`/api/wallets/${from.id}/airdrop`, { amount: '2.5' })).status).toBe(200);
    const t1 = await http.post('/api/chainb/transfer', {
      walletId: from.id,
      password: 'wallet-pass-1',
      amount: '1.000000000000000003',
      recipientAddress: to.address,
    });
    expect(t1.status, JSON.stringify(t1.json)).toBe(200);
    const read = async () => ({
      from: (await http.get(`/api/chainb/balance/${from.address}`)).json.balance,
      to: (await http.get(`/api/chainb/balance/${to.address}`)).json.balance,
      tx: (await http.get(`/api/chainb/tx/${t1.json.txHash}`)).json.transaction,
    });
    const before = await read();
    expect(before.to).toBe('1000000000000000003');
    expect(BigInt(before.from)).toBe(2_500_000_000_000_000_000n - 1_000_000_000_000_000_003n - BigInt(t1.json.fee));

    await server.stop();
    server = await npmStart(dataDir);
    http = new HttpClient(server.url);
    expect((await http.post('/api/auth/login', { username, password: PASSWORD })).status).toBe(200);
    expect(await read()).toEqual(before);
    const t2 = await http.post('/api/chainb/transfer', { walletId: from.id, password: 'wallet-pass-1', amount: '0.5', recipientAddress: to.address });
    expect(t2.status, JSON.stringify(t2.json)).toBe(200);
    expect(t2.json.deployTxHash).toBeUndefined();
    expect((await http.get(`/api/chainb/tx/${t2.json.txHash}`)).json.transaction.nonce).toBe('0x2');
    expect((await http.get(`/api/chainb/balance/${to.address}`)).json.balance).toBe('1500000000000000003');
  });
});
