import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FaultyChainA } from '#lib/chains/chain-a/faults.ts';
import { advanceClock, clock } from '#lib/clock.ts';
import { startTestRuntime, type HttpClient, type TestRuntime } from '../support/runtime.ts';
import { request } from './chaos-helpers.ts';
import { signedInUser } from './identity-helpers.ts';

/**
 * A reward claim whose mint landed but was confirmed after the client's timeout (issue 36, defect
 * 3), against the fault layer (CHAIN_FAULTS): the claim stays reserved for that mint (202
 * `submitted`), a second claim is refused, and the journal marks it paid once the chain says it
 * landed. Before, the timeout released the claim and the next claim minted again.
 */
const EPOCH_MS = 3_600_000;
let rt: TestRuntime;
let alice: HttpClient;
let bob: HttpClient;
let aliceWallet: { id: string; address: string };
let bobWallet: { id: string; address: string };
let chain: FaultyChainA;

beforeAll(async () => {
  rt = await startTestRuntime({ RATE_LIMIT_MULTIPLIER: '20', REWARDS_EPOCH_SECONDS: '3600', CHAIN_FAULTS: 'slot-ms=0' });
  advanceClock(EPOCH_MS - (clock.nowMs() % EPOCH_MS) + 60_000);
  alice = rt.client();
  bob = rt.client();
  await signedInUser(alice);
  await signedInUser(bob);
  aliceWallet = (await alice.post('/api/wallets', { chain: 'a', name: 'main' })).json.wallet;
  bobWallet = (await bob.post('/api/wallets', { chain: 'a', name: 'main' })).json.wallet;
  for (const [c, w] of [
    [alice, aliceWallet],
    [bob, bobWallet],
  ] as const) {
    expect((await c.post(`/api/wallets/${w.id}/airdrop`, { amount: 5 })).status).toBe(200);
    expect((await c.post('/api/compression/compress-native', { walletId: w.id, amount: 1 })).status).toBe(200);
  }
  chain = (await (await import('#lib/chains/chain-a/index.ts')).chainA()) as FaultyChainA;
}, 120_000);
afterAll(async () => rt?.stop());

describe('a reward mint confirmed after the timeout', () => {
  it('is paid once: 202 submitted, a second claim is 409 ALREADY_CLAIMED, the journal marks it paid', async () => {
    const epoch = (await alice.get('/api/rewards/me')).json.epoch as number;
    advanceClock(EPOCH_MS - (clock.nowMs() % EPOCH_MS) + 70_000); // past the end and its grace minute
    // bob's claim first: it sets up the reward token (its mint and treasury), so the fault meets alice's mint alone
    const b = await bob.post('/api/rewards/claim', { epoch, walletId: bobWallet.id });
    expect(b.status, JSON.stringify(b.json)).toBe(200);
    const mint = b.json.mint as string;
    const tokens = async () => BigInt((await alice.get(`/api/wallets/${aliceWallet.id}/balance?mint=${mint}`)).json.balance);

    chain.inject('late');
    const first = await alice.post('/api/rewards/claim', { epoch, walletId: aliceWallet.id });
    expect(first.status, JSON.stringify(first.json)).toBe(202);
    expect(first.json).toMatchObject({ status: 'submitted', txHash: expect.any(String) });
    const paid = await tokens();
    expect(paid).toBeGreaterThan(0n);

    const second = await alice.post('/api/rewards/claim', { epoch, walletId: aliceWallet.id });
    expect(second.status).toBe(409);
    expect(second.json.error).toBe('ALREADY_CLAIMED');
    expect(await tokens()).toBe(paid);

    chain.advanceSlots(200); // the mint's status leaves the recent cache: the journal searches the history
    expect((await (await import('#lib/moves/journal.ts')).resolveMovesOnce()).landed).toBe(1);
    expect((await alice.post('/api/rewards/claim', { epoch, walletId: aliceWallet.id })).status).toBe(409);
    expect(await tokens()).toBe(paid);
    const me = (await alice.get('/api/rewards/me')).json as { claimable: { epoch: number; claimed: boolean }[] };
    expect(me.claimable.find((c) => c.epoch === epoch)?.claimed).toBe(true);
  });
});

describe('a claim whose request died before its mint was recorded', () => {
  it('is not lost: once the reservation lapsed, the next claim pays it, once', async () => {
    // alice earns in a new epoch; bob's claim above set the reward token up
    expect((await alice.post('/api/compression/compress-native', { walletId: aliceWallet.id, amount: 0.5 })).status).toBe(200);
    const epoch = (await alice.get('/api/rewards/me')).json.epoch as number;
    advanceClock(EPOCH_MS - (clock.nowMs() % EPOCH_MS) + 70_000);
    const { REWARD_TOKEN, accountOf } = await import('#lib/rewards/rules.ts');
    const me = (await alice.get('/api/auth/me')).json.user as { id: string };
    const points = (await (await import('#lib/data/rewards-ledger.ts')).epochAccount(epoch, accountOf(me.id)))!.points;
    const mint = (await (await import('#lib/data/swap-pools.ts')).getServiceKey('rewards-treasury'))!.mints.SHRD!;
    const tokens = async () => BigInt((await alice.get(`/api/wallets/${aliceWallet.id}/balance?mint=${mint}`)).json.balance);
    const before = await tokens();

    // The process dies waiting for the node, after the claim was reserved and before any mint was signed.
    chain.inject('crash-before', 'read');
    expect(await request(rt, alice, chain, '/api/rewards/claim', { epoch, walletId: aliceWallet.id }, 'died-claim')).toBe('crashed');
    chain.clearInjected();
    expect((await alice.post('/api/rewards/claim', { epoch, walletId: aliceWallet.id })).json.error).toBe('ALREADY_CLAIMED'); // still reserved

    advanceClock(300_000);
    await (await import('#lib/moves/journal.ts')).resolveMovesOnce();
    const again = await alice.post('/api/rewards/claim', { epoch, walletId: aliceWallet.id });
    expect(again.status, JSON.stringify(again.json)).toBe(200);
    expect(await tokens()).toBe(before + BigInt(points) * REWARD_TOKEN.perPoint);
    expect((await alice.post('/api/rewards/claim', { epoch, walletId: aliceWallet.id })).json.error).toBe('ALREADY_CLAIMED');
    expect(await tokens()).toBe(before + BigInt(points) * REWARD_TOKEN.perPoint);
  });
});
