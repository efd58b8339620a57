import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestRuntime, type HttpClient, type TestRuntime } from '../support/runtime.ts';
import { signedInUser } from './identity-helpers.ts';

/**
 * CHAIN_B_NETWORK=mainnet through the rpc adapter, whose node is a closed loopback port: no
 * faucet (403 before any call), and an unreachable chain answers 502 CHAINB_ERROR, never a 500.
 */
let rt: TestRuntime;
let alice: HttpClient;

beforeAll(async () => {
  rt = await startTestRuntime({
    CHAIN_B_NETWORK: 'mainnet',
    CHAINB_ADAPTER: 'rpc',
    CHAINB_CHAIN_ID: 'SN_MAIN',
    CHAINB_RPC_URL: 'http://127.0.0.1:9/rpc',
    CHAINB_REGISTRY_ADDRESS: '0x0712e2b3f0c5c1f2a5d3e8b9c0a1f2e3d4c5b6a7980f1e2d3c4b5a6978877665',
    CHAINB_ACCOUNT_ADDRESS: '0x0467a0b0a1e1c37bd4ba9cf3c5e4f1d0e1fbb5b67e0aa48e3a4d32cf8a5e6a11',
    CHAINB_PRIVATE_KEY: '0x1234567890abcdef',
  });
  alice = rt.client();
  await signedInUser(alice);
});
afterAll(async () => rt?.stop());

describe('chain B on mainnet', () => {
  it('airdrop is 403 FORBIDDEN; an unreachable node is 502 CHAINB_ERROR; explorer links would be Voyager', async () => {
    const w = (await alice.post('/api/wallets', { chain: 'b', name: 'main', password: 'wallet-pass-123' })).json.wallet;
    const drop = await alice.post(`/api/wallets/${w.id}/airdrop`, { amount: 1 });
    expect(drop.status).toBe(403);
    expect(drop.json).toEqual({ error: 'FORBIDDEN', message: expect.stringContaining('localnet') });
    for (const r of [
      await alice.get(`/api/chainb/balance/${w.address}`),
      await alice.get(`/api/wallets/${w.id}/balance`),
      await alice.get(`/api/chainb/tx/0x0${'ab'.repeat(31)}`),
      await alice.post('/api/chainb/transfer', { walletId: w.id, password: 'wallet-pass-123', amount: '1', recipientAddress: w.address }),
    ]) {
      expect(r.status, JSON.stringify(r.json)).toBe(502);
      expect(r.json.error).toBe('CHAINB_ERROR');
    }
    const { chainBExplorerUrl } = await import('#lib/chains/chain-b/index.ts');
    expect(chainBExplorerUrl('0xabc', undefined)).toBe('https://voyager.online/tx/0xabc');
  });
});
