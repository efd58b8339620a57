import { PublicKey } from '@solana/web3.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { FaultyChainA } from '#lib/chains/chain-a/faults.ts';
import { advanceClock, clock } from '#lib/clock.ts';
import { startTestRuntime, type HttpClient, type TestRuntime } from '../support/runtime.ts';
import { feeOf } from '../support/fees.ts';
import { signedInUser } from './identity-helpers.ts';

/**
 * The accrual outbox (lib/rewards/accrue.ts `retryAccrualsOnce`) decides by the chain, never by the
 * note's age: a noted transaction that the chain has not shown yet is dropped only once it can never
 * land. A journaled send (lib/moves/journal.ts) can land as long as its blockhash lives, counted in
 * blocks: with slots that do not advance with the clock (`slot-ms=0`: a cluster producing blocks
 * slowly, or halted and restarted), a send in flight for longer than OWED_UNSEEN_DROP_MS of wall
 * time still lands. The journal's pass and the outbox are driven here, not by the runtime's timers.
 */
let rt: TestRuntime;
let alice: HttpClient;
let aliceId: string;
let wallet: { id: string; address: string };
let chain: FaultyChainA;

beforeAll(async () => {
  rt = await startTestRuntime({ RATE_LIMIT_MULTIPLIER: '50', CHAIN_FAULTS: 'slot-ms=0' }, undefined, {
    withoutJobs: ['transfer-retry', 'rewards-retry', 'bridge-relayer'],
  });
  alice = rt.client();
  aliceId = (await signedInUser(alice)).user.id;
  wallet = (await alice.post('/api/wallets', { chain: 'a', name: 'main' })).json.wallet;
  expect((await alice.post(`/api/wallets/${wallet.id}/airdrop`, { amount: 10 })).status).toBe(200);
  chain = (await (await import('#lib/chains/chain-a/index.ts')).chainA()) as FaultyChainA;
}, 120_000);
afterAll(async () => rt?.stop());
beforeEach(() => {
  chain.clearInjected();
  advanceClock(61_000);
});

describe('an owed accrual whose transaction is still in flight past OWED_UNSEEN_DROP_MS', () => {
  it('is kept while the journal has the transaction open, and recorded once it lands: its points are not lost to a timeout', async () => {
    const { retryAccrualsOnce, ACCRUAL_RETRY_AFTER_MS, OWED_UNSEEN_DROP_MS } = await import('#lib/rewards/accrue.ts');
    const { listOwed, ledger } = await import('#lib/data/rewards-ledger.ts');
    const { getMove } = await import('#lib/data/value-moves.ts');
    const { resolveMovesOnce } = await import('#lib/moves/journal.ts');
    const { IN_FLIGHT_SLOTS } = await import('#lib/chains/chain-a/faults.ts');

    chain.inject('in-flight'); // accepted, no status yet; lands IN_FLIGHT_SLOTS slots later while its blockhash lives
    const res = await alice.post(
      '/api/compression/compress-native',
      { walletId: wallet.id, amount: 0.002 },
      { headers: { 'idempotency-key': 'owed-in-flight-1' } },
    );
    expect(res.status, JSON.stringify(res.json)).toBe(202);
    const txHash: string = res.json.txHash;
    expect((await getMove(txHash))?.status).toBe('sent');
    const owedFor = async () => (await listOwed(new Date(clock.nowMs() + 86_400_000).toISOString())).filter((o) => o.txHash === txHash);
    expect(await owedFor()).toHaveLength(1);

    // Wall time passes, the chain's blocks do not: the transaction can still land.
    advanceClock(ACCRUAL_RETRY_AFTER_MS + OWED_UNSEEN_DROP_MS + 1_000);
    const pass = await retryAccrualsOnce();
    expect(pass).toMatchObject({ dropped: 0, recorded: 0 });
    expect(await owedFor()).toHaveLength(1);

    // It lands; the journal settles it landed (a wallet send's points are the outbox's to record).
    chain.advanceSlots(IN_FLIGHT_SLOTS);
    await chain.rpc.getBalance(new PublicKey(wallet.address)); // a read: what landed meanwhile is applied
    await chain.applied();
    expect(chain.landedSignatures()).toContain(txHash);
    await resolveMovesOnce();
    expect((await getMove(txHash))?.status).toBe('landed');

    expect(await retryAccrualsOnce()).toMatchObject({ recorded: 1 });
    const entries = (await ledger(aliceId)).filter((e) => e.txHash === txHash);
    expect(entries).toEqual([expect.objectContaining({ source: 'compression', points: (await feeOf(txHash)).points })]);
    expect(await owedFor()).toEqual([]);
  });
});
