import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestRuntime, type HttpClient, type TestRuntime } from '../support/runtime.ts';
import { signedInUser } from './identity-helpers.ts';

/**
 * CHAIN_A_NETWORK=mainnet: no faucet. The RPC URL points at a closed loopback port: the refusal
 * comes before any call to the chain.
 */
let rt: TestRuntime;
let alice: HttpClient;

beforeAll(async () => {
  rt = await startTestRuntime({ CHAIN_A_NETWORK: 'mainnet', CHAIN_A_RPC_URL: 'http://127.0.0.1:9' });
  alice = rt.client();
  await signedInUser(alice);
});
afterAll(async () => rt?.stop());

describe('wallets on mainnet', () => {
  it('airdrop is 403 FORBIDDEN; chain A wallets are still made locally', async () => {
    const w = (await alice.post('/api/wallets', { chain: 'a', name: 'main' })).json.wallet;
    const r = await alice.post(`/api/wallets/${w.id}/airdrop`, { amount: 1 });
    expect(r.status).toBe(403);
    expect(r.json).toEqual({ error: 'FORBIDDEN', message: expect.stringContaining('localnet and devnet') });
    // the chain cannot be reached at all here: reads answer RPC_ERROR, not a 500
    expect((await alice.get(`/api/wallets/${w.id}/balance`)).json.error).toBe('RPC_ERROR');
  });
});
