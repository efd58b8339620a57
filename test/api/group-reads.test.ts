import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestRuntime, type HttpClient, type TestRuntime } from '../support/runtime.ts';
import { signedInUser } from './identity-helpers.ts';

/**
 * One read of each route group whose moves need a chain's indexer (proofs, transfer, swap, bridge,
 * rewards), over HTTP only: under `npm test` against the embedded runtime, under `npm run
 * test:assets` against the synthesized assets (test/assets.config.ts), so that every group's
 * function is called at least once as it ships. Each answer is checked against the OpenAPI
 * document by the client (test/support/response-check.ts).
 */
let rt: TestRuntime;
let alice: HttpClient;

beforeAll(async () => {
  rt = await startTestRuntime();
  alice = rt.client();
  await signedInUser(alice);
}, 120_000);
afterAll(async () => rt?.stop());

describe('each group answers a read as documented', () => {
  it('proofs: a new user has no proof history and counts nothing', async () => {
    const list = await alice.get('/api/proofs');
    expect(list.status, JSON.stringify(list.json)).toBe(200);
    const stats = await alice.get('/api/proofs/stats');
    expect(stats.status, JSON.stringify(stats.json)).toBe(200);
  });

  it('transfer: the pools are listed; an unknown nullifier is unspent', async () => {
    const pools = await alice.get('/api/transfer/pools');
    expect(pools.status, JSON.stringify(pools.json)).toBe(200);
    const nullifier = await alice.get(`/api/transfer/nullifiers/${'1'.repeat(64)}`);
    expect(nullifier.status, JSON.stringify(nullifier.json)).toBe(200);
    expect(nullifier.json.spent).toBe(false);
  });

  it('swap: a new user has no orders and no one-time addresses', async () => {
    const orders = await alice.get('/api/swap/orders');
    expect(orders.status, JSON.stringify(orders.json)).toBe(200);
    const addresses = await alice.get('/api/swap/addresses');
    expect(addresses.status, JSON.stringify(addresses.json)).toBe(200);
  });

  it('bridge: a new user has no history; an unknown record is 404', async () => {
    const history = await alice.get('/api/bridge/history');
    expect(history.status, JSON.stringify(history.json)).toBe(200);
    const unknown = await alice.get('/api/bridge/status/00000000-0000-4000-8000-000000000000');
    expect(unknown.status, JSON.stringify(unknown.json)).toBe(404);
  });

  it('rewards: the program and the leaderboard are public; a new user has no points', async () => {
    expect((await alice.get('/api/rewards/program')).status).toBe(200);
    expect((await alice.get('/api/rewards/leaderboard')).status).toBe(200);
    const me = await alice.get('/api/rewards/me');
    expect(me.status, JSON.stringify(me.json)).toBe(200);
  });
});
