import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChainBFault, FaultyChainB } from '#lib/chains/chain-b/faults.ts';
import { advanceClock, clock } from '#lib/clock.ts';
import type { ChainBMoveRecord } from '#lib/data/value-moves.ts';
import { startTestRuntime, type HttpClient, type TestRuntime } from '../support/runtime.ts';
import { expectDocumented, measured, printReport, request, scheduleDone, PROPERTY_TIMEOUT, RUNS, type Answer, type Report } from './chaos-helpers.ts';
import { signedInUser } from './identity-helpers.ts';

/**
 * Chaos as properties for chain B transfers (issue 36; the chain A moves are chaos.test.ts and
 * chaos-moves.test.ts): random schedules of chain B faults (lib/chains/chain-b/faults.ts: RECEIVED
 * for blocks, RECEIVED then REJECTED, REVERTED with a reason, a nonce taken, accepted but never
 * received, the request dying before or after chain B took its send) and concurrent
 * requests with one Idempotency-Key; then blocks pass (the transfer retry job's pass settling the
 * journal meanwhile, or not), a retry with the key, the wallet's hold lapses, a last retry, and the
 * job's pass. At the end, against the value-move journal (lib/moves/chain-b.ts): every move
 * settled; at most one landed for the key; the recipient's balance changed by exactly what the
 * journal says landed, the sender's by that and one fee per transaction of its account chain B
 * accepted; every transaction an answer named is journaled as its answer says; every answer one the
 * README documents. `npm test`: a fixed seed and CHAOS_RUNS (default 8) schedules; `npm run chaos`: 1,000.
 */
const SEED = Number(process.env.CHAOS_SEED ?? 36);
const PASS = 'chaos-pass-1';
const E18 = 10n ** 18n;
let rt: TestRuntime;
let alice: HttpClient;
let wallet: { id: string; address: string };
let recipient: { id: string; address: string };
let chain: FaultyChainB;
let chainb: typeof import('#lib/chains/chain-b/index.ts');
let moves: typeof import('#lib/data/value-moves.ts');
let retryJob: () => Promise<unknown>;
let invokeFee: bigint;
let keys = 0;
const report: Report = {};
// Each schedule moves the clock 31 minutes: a thousand of them outlive a session, so the user signs in again each simulated day.
let signIn: () => Promise<void>;
let signedInAt = 0;

beforeAll(async () => {
  rt = await startTestRuntime({ RATE_LIMIT_MULTIPLIER: '1000', CHAIN_FAULTS: 'b.block-ms=0,b.pending-blocks=2' });
  alice = rt.client();
  const me = await signedInUser(alice);
  signIn = async () => {
    const login = await alice.post('/api/auth/login', { username: me.username, password: me.password });
    expect(login.status).toBe(200);
    signedInAt = clock.nowMs();
  };
  signedInAt = clock.nowMs();
  wallet = (await alice.post('/api/wallets', { chain: 'b', name: 'chaos', password: PASS })).json.wallet;
  recipient = (await alice.post('/api/wallets', { chain: 'b', name: 'chaos-to', password: PASS })).json.wallet;
  expect((await alice.post(`/api/wallets/${wallet.id}/airdrop`, { amount: 100 })).status).toBe(200);
  expect((await send('0.001', 'deploy')).status).toBe(200); // deploys the account
  chainb = await import('#lib/chains/chain-b/index.ts');
  chain = chainb.chainB() as FaultyChainB;
  expect(FAULTS).toEqual([...(await import('#lib/chains/chain-b/faults.ts')).FAULTS]);
  const fees = await import('#lib/chains/chain-b/fees.ts');
  invokeFee = fees.feeOf(fees.LOCAL_GAS_USE.invoke);
  moves = await import('#lib/data/value-moves.ts');
  retryJob = (await import('#functions/scheduled/transfer-retry.ts')).handler;
}, 600_000); // a loaded machine starts the runtime slowly
afterAll(async () => {
  await rt?.stop();
  printReport(report);
});

function send(amount: string, key: string) {
  return alice.post(
    '/api/chainb/transfer',
    { walletId: wallet.id, password: PASS, amount, recipientAddress: recipient.address },
    { headers: { 'idempotency-key': key } },
  );
}

// lib/chains/chain-b/faults.ts loads the ledger's store, which reads its configuration at load: named here, checked against FAULTS below.
const FAULTS: ChainBFault[] = ['pending', 'rejected', 'reverted', 'nonce-used', 'copy-first', 'dropped', 'crash-before', 'crash-after'];
const schedule = fc.record({
  faults: fc.array(fc.constantFrom<ChainBFault | 'none'>('none', ...FAULTS), { minLength: 1, maxLength: 3 }),
  concurrent: fc.integer({ min: 1, max: 3 }),
  milli: fc.integer({ min: 1, max: 9 }),
  blocks: fc.integer({ min: 0, max: 3 }),
  // The transfer retry job's pass runs after those blocks (it settles what chain B decided, freeing the key), or not.
  settlePass: fc.boolean(),
  // Reads answered by a node behind the rest (a load balancer's): the next few of any kind, or of the status only.
  lagging: fc.integer({ min: 0, max: 6 }),
  lagged: fc.constantFrom<'getTransactionStatus' | undefined>(undefined, 'getTransactionStatus'),
});

/** The transaction an answer names: a 200's or 202's, or a 422 TRANSACTION_REVERTED's (in its message). */
function named(a: Answer): string | undefined {
  if (a === 'crashed') return undefined;
  if (a.status === 200 || a.status === 202) return a.json.txHash;
  if (a.json.error === 'TRANSACTION_REVERTED') return /transaction (0x[0-9a-f]+)/.exec(a.json.message)?.[1];
  return undefined;
}

describe('chaos: chain B transfer', () => {
  it(
    `${RUNS} schedules of faults and retries keep every invariant`,
    async () => {
      await measured(report, 'chain-b-transfer', chain, () =>
        fc.assert(
          fc.asyncProperty(schedule, async (s) => {
            chain.clearInjected();
            if (clock.nowMs() - signedInAt > 86_400_000) await signIn();
            const key = `chaos-b-${++keys}`;
            const strk = (a: string) => chainb.balanceOf(chainb.STRK.address, a);
            if ((await strk(wallet.address)) < 5n * E18) expect((await alice.post(`/api/wallets/${wallet.id}/airdrop`, { amount: 100 })).status).toBe(200);
            const [senderBefore, recipientBefore, nonceBefore] = await Promise.all([
              strk(wallet.address),
              strk(recipient.address),
              chain.getNonce(wallet.address),
            ]);
            const othersBefore = chain.injected['nonce-used'];
            for (const f of s.faults) if (f !== 'none') chain.inject(f);
            chain.lagNextReads(s.lagging, s.lagged);
            const amount = BigInt(s.milli) * 10n ** 15n;
            const text = `0.00${s.milli}`;
            const post = () =>
              request(
                rt,
                alice,
                chain,
                '/api/chainb/transfer',
                { walletId: wallet.id, password: PASS, amount: text, recipientAddress: recipient.address },
                key,
              );
            const answers: Answer[] = await Promise.all(Array.from({ length: s.concurrent }, post));
            // Some blocks pass (the job's pass, or not), a retry with the key meanwhile; then every held
            // transaction is decided, the hold lapses, a last retry, and the job's pass.
            await chain.advanceBlocks(s.blocks);
            if (s.settlePass) {
              advanceClock(31_000); // past TRANSFER_RETRY_AFTER_SECONDS: the job takes what its requests have left
              await retryJob();
            }
            answers.push(await post());
            chain.clearInjected();
            await chain.advanceBlocks(10);
            advanceClock(31 * 60 * 1000);
            answers.push(await post());
            await chain.advanceBlocks(1);
            await retryJob();
            // Once more with the key: it names what landed for it (a request that died named nothing), or sends anew if nothing did.
            answers.push(await post());

            // every move settled: none of any schedule left open, nothing held back on chain B (the last request's send landed at once)
            expect(await moves.listOpenChainBMoves(new Date(clock.nowMs() + 86_400_000).toISOString())).toEqual([]);
            expect(chain.heldBack()).toEqual([]);
            // every transaction an answer named is journaled, settled as its answer says
            const hashes = [...new Set(answers.map(named).filter((h): h is string => h !== undefined))];
            const journal = await Promise.all(hashes.map(async (h) => ({ h, m: (await moves.getMove(h)) as ChainBMoveRecord | undefined })));
            for (const { h, m } of journal) {
              expect(m, h).toMatchObject({
                chain: 'b',
                account: wallet.address,
                walletId: wallet.id,
                moves: { amount: amount.toString(), to: recipient.address },
              });
              expect(m!.status).not.toBe('sent');
            }
            for (const a of answers) {
              if (a === 'crashed') continue;
              if (a.status === 200) expect((await moves.getMove(a.json.txHash))?.status).toBe('landed');
              if (a.json.error === 'TRANSACTION_REVERTED') expect(await moves.getMove(named(a)!)).toMatchObject({ status: 'failed', failure: 'reverted' });
            }
            // at most one landed for the key; the balances are what the journal says landed
            const landed = journal.filter(({ m }) => m!.status === 'landed');
            expect(landed.length).toBeLessThanOrEqual(1);
            for (const { h } of landed) expect((await chain.getTransaction(h))?.status).toBe('SUCCEEDED');
            const gained = (await strk(recipient.address)) - recipientBefore;
            expect(gained).toBe(landed.reduce((sum, { m }) => sum + BigInt(m!.moves.amount), 0n));
            // the sender paid that and one fee per transaction of its account chain B accepted: the journal's
            // landed and reverted ones, and the other signer's that took a nonce (the nonce-used fault)
            const reverted = journal.filter(({ m }) => m!.status === 'failed' && m!.failure === 'reverted').length;
            const accepted = landed.length + reverted + (chain.injected['nonce-used'] - othersBefore);
            expect((await chain.getNonce(wallet.address)) - nonceBefore).toBe(BigInt(accepted));
            expect(senderBefore - (await strk(wallet.address))).toBe(gained + BigInt(accepted) * invokeFee);
            // every answer documented
            expectDocumented(answers, { 409: ['NONCE_CONFLICT'], 422: ['TRANSACTION_REVERTED'], 502: ['CHAINB_ERROR'] });
            scheduleDone(report, 'chain-b-transfer', answers.length);
          }),
          { numRuns: RUNS, seed: SEED, endOnFailure: true },
        ),
      );
    },
    PROPERTY_TIMEOUT,
  );
});
