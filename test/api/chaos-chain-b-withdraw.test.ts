import { Keypair, PublicKey } from '@solana/web3.js';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChainBFault, FaultyChainB } from '#lib/chains/chain-b/faults.ts';
import { advanceClock, clock } from '#lib/clock.ts';
import type { ChainBMoveRecord } from '#lib/data/value-moves.ts';
import { startTestRuntime, type HttpClient, type TestRuntime } from '../support/runtime.ts';
import {
  crashable,
  expectDocumented,
  measured,
  printReport,
  request,
  scheduleDone,
  PROPERTY_TIMEOUT,
  RUNS,
  type Answer,
  type Report,
} from './chaos-helpers.ts';
import { signedInUser } from './identity-helpers.ts';

/**
 * Chaos as a property for chain B → chain A withdrawals sent by the service from a chain B wallet
 * (POST /api/bridge/initiate with walletId: the warp route's transfer_remote burns the synthetic
 * token, its bridge record attached before the send, lib/bridge/withdraw.ts; the relayer confirms
 * or fails the record by the value-move journal's settlement and releases on chain A). Each
 * schedule: chain B faults (lib/chains/chain-b/faults.ts: RECEIVED for blocks, RECEIVED then
 * REJECTED, REVERTED, a nonce taken, accepted but never received, the request dying before or
 * after chain B took the send), 1–3 concurrent requests with one Idempotency-Key; blocks pass,
 * the relayer and the transfer retry job side by side (or not), a retry with the key; every held
 * transaction decided, the wallet's hold lapses, a last retry; relayer and retry passes side by
 * side. Then: every journal entry settled; at most one burn for the key; the wallet's synthetic
 * balance fell by exactly what the journal says landed, and its STRK by one fee per transaction of
 * its account chain B accepted; each record of the schedule is completed exactly when its
 * transaction landed (failed otherwise) and chain A credited the destination exactly that once;
 * every answer documented. `npm test`: a fixed seed and CHAOS_RUNS (default 8); `npm run chaos`: 1,000.
 * The jobs are driven here, not by the runtime's timers.
 */
// 7: its first eight schedules meet every fault of the layer, with and without the passes between.
const SEED = Number(process.env.CHAOS_SEED ?? 7);
const PASS = 'chaos-withdraw-1';
const E18 = 10n ** 18n;
const SOL = 1_000_000_000n;
let rt: TestRuntime;
let alice: HttpClient;
let aliceId: string;
let walletA: { id: string; address: string };
let walletB: { id: string; address: string };
let chain: FaultyChainB;
let chainb: typeof import('#lib/chains/chain-b/index.ts');
let moves: typeof import('#lib/data/value-moves.ts');
let bridges: typeof import('#lib/data/bridge-transfers.ts');
let chainA: Awaited<ReturnType<typeof import('#lib/chains/chain-a/index.ts')['chainA']>>;
let synthetic: string;
let invokeFee: bigint;
let keys = 0;
const report: Report = {};
let signIn: () => Promise<void>;
let signedInAt = 0;

const relayOnce = async () => (await import('#lib/bridge/relayer.ts')).relayOnce();
const retryJob = async () => (await import('#functions/scheduled/transfer-retry.ts')).handler();
const lamports = async (a: string) => BigInt(await chainA.rpc.getBalance(new PublicKey(a)));
const strk = (a: string) => chainb.balanceOf(chainb.STRK.address, a);
const held = () => chainb.balanceOf(synthetic, walletB.address);

/** Synthetic SOL on chain B for the withdrawals: a deposit from the chain A wallet, relayed without faults. */
async function deposit(amount: string) {
  if ((await lamports(walletA.address)) < 3n * SOL) expect((await alice.post(`/api/wallets/${walletA.id}/airdrop`, { amount: 10 })).status).toBe(200);
  const d = await alice.post('/api/bridge/initiate', {
    bridgeType: 'chaina-chainb',
    direction: 'deposit',
    token: 'SOL',
    amount,
    destAddress: walletB.address,
    walletId: walletA.id,
  });
  expect(d.status, JSON.stringify(d.json)).toBe(200);
  for (let i = 0; i < 5; i++) await relayOnce();
  expect((await alice.get(`/api/bridge/status/${d.json.transaction.id}`)).json.transaction.status).toBe('completed');
}

const body = (milli: number, dest: string) => ({
  bridgeType: 'chaina-chainb',
  direction: 'withdraw',
  token: 'SOL',
  amount: `0.00${milli}`,
  destAddress: dest,
  walletId: walletB.id,
  password: PASS,
});

beforeAll(async () => {
  rt = await startTestRuntime({ RATE_LIMIT_MULTIPLIER: '1000', CHAIN_FAULTS: 'b.block-ms=0,b.pending-blocks=2' }, undefined, {
    withoutJobs: ['transfer-retry', 'bridge-relayer'],
  });
  alice = rt.client();
  const me = await signedInUser(alice);
  aliceId = me.user.id;
  signIn = async () => {
    const login = await alice.post('/api/auth/login', { username: me.username, password: me.password });
    expect(login.status).toBe(200);
    signedInAt = clock.nowMs();
  };
  signedInAt = clock.nowMs();
  walletA = (await alice.post('/api/wallets', { chain: 'a', name: 'main' })).json.wallet;
  walletB = (await alice.post('/api/wallets', { chain: 'b', name: 'main', password: PASS })).json.wallet;
  chainA = await (await import('#lib/chains/chain-a/index.ts')).chainA();
  chainb = await import('#lib/chains/chain-b/index.ts');
  chain = chainb.chainB() as unknown as FaultyChainB;
  expect(FAULTS).toEqual([...(await import('#lib/chains/chain-b/faults.ts')).FAULTS]);
  moves = await import('#lib/data/value-moves.ts');
  bridges = await import('#lib/data/bridge-transfers.ts');
  synthetic = (await import('#lib/bridge/routes.ts')).routeToken('chaina-chainb', 'SOL')!.destinationToken;
  const fees = await import('#lib/chains/chain-b/fees.ts');
  invokeFee = fees.feeOf(fees.LOCAL_GAS_USE.invoke);
  expect((await alice.post(`/api/wallets/${walletB.id}/airdrop`, { amount: 100 })).status).toBe(200); // STRK for the fees
  await deposit('1');
  // The first withdrawal deploys the account (its fee is not an INVOKE's): done before the schedules.
  const first = await alice.post('/api/bridge/initiate', body(1, Keypair.generate().publicKey.toBase58()));
  expect(first.status, JSON.stringify(first.json)).toBe(200);
}, 600_000); // a loaded machine starts the runtime slowly
afterAll(async () => {
  await rt?.stop();
  printReport(report);
});

// lib/chains/chain-b/faults.ts loads the ledger's store, which reads its configuration at load: named here, checked against FAULTS above.
const FAULTS: ChainBFault[] = ['pending', 'rejected', 'reverted', 'nonce-used', 'copy-first', 'dropped', 'crash-before', 'crash-after'];
const schedule = fc.record({
  faults: fc.array(fc.constantFrom<ChainBFault | 'none'>('none', ...FAULTS), { minLength: 1, maxLength: 3 }),
  concurrent: fc.integer({ min: 1, max: 3 }),
  milli: fc.integer({ min: 1, max: 9 }),
  blocks: fc.integer({ min: 0, max: 3 }),
  // The relayer and the transfer retry job, side by side, after those blocks (or not).
  passes: fc.boolean(),
  // Reads answered by a node behind the rest (a load balancer's): the next few of any kind, or of the status only.
  lagging: fc.integer({ min: 0, max: 6 }),
  lagged: fc.constantFrom<'getTransactionStatus' | undefined>(undefined, 'getTransactionStatus'),
});

/** The transaction an answer names: a 200's or 202's source transaction, or a 422 TRANSACTION_REVERTED's (in its message). */
function named(a: Answer): string | undefined {
  if (a === 'crashed') return undefined;
  if (a.status === 200 || a.status === 202) return a.json.transaction?.sourceTxHash ?? undefined;
  if (a.json.error === 'TRANSACTION_REVERTED') return /transaction (0x[0-9a-f]+)/.exec(a.json.message)?.[1];
  return undefined;
}

/** Relayer passes (two, as two instances would) and the retry job's, side by side. */
const sideBySide = () => Promise.all([crashable(chain, relayOnce), crashable(chain, retryJob), crashable(chain, relayOnce)]);

describe('chain B withdrawal: a request that died after chain B took its burn', () => {
  it('a retry with its Idempotency-Key: 409 while the 30-minute hold lasts; after it, nothing having settled it, the 202 naming the burn (the answer kept at binding), never a second burn; burned once', async () => {
    const dest = Keypair.generate().publicKey.toBase58();
    const before = await held();
    chain.inject('crash-after');
    const key = `crashed-${++keys}`;
    expect(await request(rt, alice, chain, '/api/bridge/initiate', body(5, dest), key)).toBe('crashed');
    advanceClock(61_000);
    expect(await request(rt, alice, chain, '/api/bridge/initiate', body(5, dest), key)).toMatchObject({
      status: 409,
      json: { error: 'IDEMPOTENCY_IN_PROGRESS' },
    });
    advanceClock(30 * 60 * 1000);
    // Before bound claims were kept, the lapsed claim was taken over and a second transfer_remote burned
    // again (the first's nonce used, the next one free).
    const retry = await request(rt, alice, chain, '/api/bridge/initiate', body(5, dest), key);
    expect(retry).toMatchObject({ status: 202, json: { status: 'submitted' } });
    await retryJob();
    const replay = await request(rt, alice, chain, '/api/bridge/initiate', body(5, dest), key);
    expect(replay).toMatchObject({ status: 202, json: { status: 'submitted' } });
    for (let i = 0; i < 3; i++) await relayOnce();
    expect(before - (await held())).toBe(5_000_000n);
    expect(await lamports(dest)).toBe(5_000_000n);
  }, 60_000);
});

describe('chaos: chain B withdrawal', () => {
  it(
    `${RUNS} schedules of faults, crashes, retries and relayers side by side keep every invariant`,
    async () => {
      await measured(report, 'chain-b-withdraw', chain, () =>
        fc.assert(
          fc.asyncProperty(schedule, async (s) => {
            chain.clearInjected();
            advanceClock(61_000);
            if (clock.nowMs() - signedInAt > 86_400_000) await signIn();
            if ((await strk(walletB.address)) < 5n * E18) expect((await alice.post(`/api/wallets/${walletB.id}/airdrop`, { amount: 100 })).status).toBe(200);
            if ((await held()) < SOL / 10n) await deposit('1');
            const key = `chaos-bw-${++keys}`;
            const dest = Keypair.generate().publicKey.toBase58();
            const amount = BigInt(s.milli) * 1_000_000n;
            const [heldBefore, feesBefore, nonceBefore] = await Promise.all([held(), strk(walletB.address), chain.getNonce(walletB.address)]);
            const othersBefore = chain.injected['nonce-used'];
            for (const f of s.faults) if (f !== 'none') chain.inject(f);
            chain.lagNextReads(s.lagging, s.lagged);
            const post = () => request(rt, alice, chain, '/api/bridge/initiate', body(s.milli, dest), key);
            const answers: Answer[] = await Promise.all(Array.from({ length: s.concurrent }, post));
            await chain.advanceBlocks(s.blocks);
            if (s.passes) await sideBySide();
            answers.push(await post());
            chain.clearInjected();
            await chain.advanceBlocks(10);
            advanceClock(31 * 60 * 1000);
            answers.push(await post());
            await chain.advanceBlocks(1);
            for (let i = 0; i < 3; i++) await sideBySide();

            // every journal entry settled, nothing held back on chain B
            expect(await moves.listOpenChainBMoves(new Date(clock.nowMs() + 86_400_000).toISOString())).toEqual([]);
            expect(chain.heldBack()).toEqual([]);
            // the schedule's records (its destination is its own): none open. A REJECTED INVOKE sent again is the same
            // transaction (its nonce unused), so records failed before may name the hash a later record sent again:
            // the journal's move names the last (its `ref`), which is completed exactly when it landed; all others failed.
            const records = (await bridges.listBridges(aliceId)).filter((r) => r.destAddress === dest);
            const open = new Set((await bridges.listOpenBridges()).map((b) => b.id));
            const journal: { id: string; m: ChainBMoveRecord }[] = [];
            for (const h of new Set(records.map((r) => r.sourceTxHash).filter((x): x is string => !!x))) {
              const m = (await moves.getMove(h)) as ChainBMoveRecord | undefined;
              if (!m) continue;
              expect(m, h).toMatchObject({ chain: 'b', account: walletB.address, walletId: walletB.id, purpose: { operation: 'bridge-withdraw' } });
              expect(records.filter((r) => r.sourceTxHash === h).map((r) => r.id)).toContain(m.purpose.kind === 'wallet-send' ? m.purpose.ref : '');
              expect(m.moves.amount).toBe(amount.toString());
              journal.push({ id: (m.purpose as { ref: string }).ref, m });
            }
            for (const r of records) {
              expect(open.has(r.id), `${r.id} ${r.status}`).toBe(false);
              const m = journal.find((j) => j.id === r.id)?.m;
              expect(r.status, `${r.id}: ${r.failureReason}`).toBe(m?.status === 'landed' ? 'completed' : 'failed');
              if (r.status === 'completed') expect((await chain.getTransaction(r.sourceTxHash!))?.status).toBe('SUCCEEDED');
            }
            // every transaction an answer named is the source of one of these records, journaled as answered
            for (const a of answers) {
              const h = named(a);
              if (!h || a === 'crashed') continue;
              expect(records.map((r) => r.sourceTxHash)).toContain(h);
              if (a.status === 200) expect((await moves.getMove(h))?.status).toBe('landed');
              if (a.json.error === 'TRANSACTION_REVERTED') expect(await moves.getMove(h)).toMatchObject({ status: 'failed', failure: 'reverted' });
            }
            // one burn per key; the synthetic token burned and chain A credited exactly what landed, once
            const landed = journal.filter(({ m }) => m.status === 'landed');
            expect(landed.length).toBeLessThanOrEqual(1);
            expect(heldBefore - (await held())).toBe(amount * BigInt(landed.length));
            expect(await lamports(dest)).toBe(amount * BigInt(landed.length));
            // STRK: one fee per transaction of the account chain B accepted (landed, reverted, the other signer's); the nonce agrees
            const reverted = journal.filter(({ m }) => m.status === 'failed' && m.failure === 'reverted').length;
            const accepted = landed.length + reverted + (chain.injected['nonce-used'] - othersBefore);
            expect((await chain.getNonce(walletB.address)) - nonceBefore).toBe(BigInt(accepted));
            expect(feesBefore - (await strk(walletB.address))).toBe(BigInt(accepted) * invokeFee);
            expectDocumented(answers, { 409: ['NONCE_CONFLICT'], 422: ['TRANSACTION_REVERTED'], 502: ['CHAINB_ERROR'] });
            scheduleDone(report, 'chain-b-withdraw', answers.length);
          }),
          { numRuns: RUNS, seed: SEED, endOnFailure: true },
        ),
      );
    },
    PROPERTY_TIMEOUT,
  );
});
