import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChainBFault, FaultyChainB } from '#lib/chains/chain-b/faults.ts';
import { advanceClock } from '#lib/clock.ts';
import { startTestRuntime, type HttpClient, type TestRuntime } from '../support/runtime.ts';
import { signedInUser } from './identity-helpers.ts';

/**
 * Chaos as properties for chain B transfers (issue 36; the chain A moves are test/api/chaos.test.ts):
 * random schedules of chain B faults (lib/chains/chain-b/faults.ts: RECEIVED for blocks, RECEIVED
 * then REJECTED, REVERTED with a reason, a nonce taken) and concurrent requests with one
 * Idempotency-Key; then blocks pass, the wallet's hold lapses, and a last retry with the key. At the
 * end: the recipient got the amount at most once; the sender lost exactly that plus whole fees;
 * every hash an answer named was decided by chain B (accepted or REJECTED, none left RECEIVED);
 * a 200's transaction SUCCEEDED; every answer one the README documents.
 * `npm test`: a fixed seed and CHAOS_RUNS (default 8) schedules; `npm run chaos`: 1,000.
 */
const RUNS = Number(process.env.CHAOS_RUNS ?? 8);
const SEED = Number(process.env.CHAOS_SEED ?? 36);
const PASS = 'chaos-pass-1';
const E18 = 10n ** 18n;
let rt: TestRuntime;
let alice: HttpClient;
let wallet: { id: string; address: string };
let recipient: { id: string; address: string };
let chain: FaultyChainB;
let chainb: typeof import('#lib/chains/chain-b/index.ts');
let invokeFee: bigint;
let keys = 0;

beforeAll(async () => {
  rt = await startTestRuntime({ RATE_LIMIT_MULTIPLIER: '1000', CHAIN_FAULTS: 'b.block-ms=0,b.pending-blocks=2' });
  alice = rt.client();
  await signedInUser(alice);
  wallet = (await alice.post('/api/wallets', { chain: 'b', name: 'chaos', password: PASS })).json.wallet;
  recipient = (await alice.post('/api/wallets', { chain: 'b', name: 'chaos-to', password: PASS })).json.wallet;
  expect((await alice.post(`/api/wallets/${wallet.id}/airdrop`, { amount: 100 })).status).toBe(200);
  expect((await send('0.001', 'deploy')).status).toBe(200); // deploys the account
  chainb = await import('#lib/chains/chain-b/index.ts');
  chain = chainb.chainB() as FaultyChainB;
  expect(FAULTS).toEqual([...(await import('#lib/chains/chain-b/faults.ts')).FAULTS]);
  const fees = await import('#lib/chains/chain-b/fees.ts');
  invokeFee = fees.feeOf(fees.LOCAL_GAS_USE.invoke);
}, 120_000);
afterAll(async () => {
  await rt?.stop();
  if (process.env.CHAOS_REPORT) console.log(`chaos chain B: ${JSON.stringify(totals)}`);
});

function send(amount: string, key: string) {
  return alice.post(
    '/api/chainb/transfer',
    { walletId: wallet.id, password: PASS, amount, recipientAddress: recipient.address },
    { headers: { 'idempotency-key': key } },
  );
}

/** The answers the README documents for POST /api/chainb/transfer (the body's code for the errors). */
const DOCUMENTED: Record<number, string[] | undefined> = {
  200: undefined,
  202: undefined,
  409: ['WALLET_LOCKED', 'IDEMPOTENCY_IN_PROGRESS', 'NONCE_CONFLICT'],
  422: ['TRANSACTION_REVERTED', 'TRANSACTION_FAILED'],
  502: ['CHAINB_ERROR'],
};
const totals = { schedules: 0, requests: 0, faults: {} as Record<string, number>, ms: 0 };

// lib/chains/chain-b/faults.ts loads the ledger's store, which reads its configuration at load: named here, checked against FAULTS below.
const FAULTS: ChainBFault[] = ['pending', 'rejected', 'reverted', 'nonce-used'];
const schedule = fc.record({
  faults: fc.array(fc.constantFrom<ChainBFault | 'none'>('none', ...FAULTS), { minLength: 1, maxLength: 3 }),
  concurrent: fc.integer({ min: 1, max: 3 }),
  milli: fc.integer({ min: 1, max: 9 }),
  blocks: fc.integer({ min: 0, max: 3 }),
});

describe('chaos: chain B transfer', () => {
  it(`${RUNS} schedules of faults and retries keep every invariant`, async () => {
    const started = Date.now();
    await fc.assert(
      fc.asyncProperty(schedule, async (s) => {
        chain.clearInjected();
        const key = `chaos-b-${++keys}`;
        const strk = (a: string) => chainb.balanceOf(chainb.STRK.address, a);
        if ((await strk(wallet.address)) < 5n * E18) expect((await alice.post(`/api/wallets/${wallet.id}/airdrop`, { amount: 100 })).status).toBe(200);
        const [senderBefore, recipientBefore] = await Promise.all([strk(wallet.address), strk(recipient.address)]);
        for (const f of s.faults) if (f !== 'none') chain.inject(f);
        const amount = BigInt(s.milli) * 10n ** 15n;
        const text = `0.00${s.milli}`;
        const answers = await Promise.all(Array.from({ length: s.concurrent }, () => send(text, key)));
        // Some blocks pass, a retry with the key meanwhile; then every held transaction is decided and the hold lapses.
        await chain.advanceBlocks(s.blocks);
        answers.push(await send(text, key));
        chain.clearInjected();
        await chain.advanceBlocks(10);
        advanceClock(31 * 60 * 1000);
        answers.push(await send(text, key));

        const gained = (await strk(recipient.address)) - recipientBefore;
        const lost = senderBefore - (await strk(wallet.address));
        // nothing twice: at most the one amount; nothing lost: the sender paid it and whole fees, no more
        expect([0n, amount]).toContain(gained);
        expect((lost - gained) % invokeFee).toBe(0n);
        expect(lost - gained).toBeLessThanOrEqual(BigInt(s.faults.length + 2) * invokeFee);
        // every move resolved: nothing held back, every named hash decided by chain B
        expect(chain.heldBack()).toEqual([]);
        for (const a of answers) {
          if (a.status === 200 || a.status === 202) expect(['ACCEPTED', 'REJECTED']).toContain(await chain.getTransactionStatus(a.json.txHash));
          if (a.status === 200) expect((await chain.getTransaction(a.json.txHash))?.status).toBe('SUCCEEDED');
        }
        // a transfer that landed is one the answers named (no transaction of the key's unaccounted for)
        if (gained > 0n) {
          const named = await Promise.all(answers.filter((a) => a.status === 200 || a.status === 202).map((a) => chain.getTransaction(a.json.txHash)));
          expect(named.some((t) => t?.status === 'SUCCEEDED')).toBe(true);
        }
        // every answer documented
        for (const a of answers) {
          expect(Object.keys(DOCUMENTED)).toContain(String(a.status));
          const codes = DOCUMENTED[a.status];
          if (codes) expect(codes).toContain(a.json.error);
        }
        totals.schedules++;
        totals.requests += answers.length;
      }),
      { numRuns: RUNS, seed: SEED, endOnFailure: true },
    );
    totals.ms += Date.now() - started;
    for (const [f, n] of Object.entries(chain.injected)) totals.faults[f] = n;
  }, 3_600_000);
});
