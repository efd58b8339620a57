import { Keypair, PublicKey } from '@solana/web3.js';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNote, noteCommitment } from '#lib/client/transfer-note.ts';
import { fetchLeaves, proveWithdrawal } from '#lib/client/withdraw-proof.ts';
import type { ChainAFault, FaultyChainA } from '#lib/chains/chain-a/faults.ts';
import { advanceClock, clock } from '#lib/clock.ts';
import { startTestRuntime, type HttpClient, type TestRuntime } from '../support/runtime.ts';
import { FAULTS } from '#lib/chains/chain-a/faults.ts';
import {
  crashable,
  expectDocumented,
  measured,
  printReport,
  request as send,
  PROPERTY_TIMEOUT,
  RUNS,
  scheduleDone,
  scheduleFields,
  type Answer,
  type Report,
} from './chaos-helpers.ts';
import { signedInUser } from './identity-helpers.ts';

/**
 * Chaos as properties for the chain A moves that are exactly-once by a record of their own rather
 * than the journal (docs/value-moves.md): shielded payouts (lib/transfer/payouts.ts: the nullifier
 * spent once, the signed payout stored in the job before it is sent) and the bridge's releases on
 * chain A (lib/bridge/chain-a-release.ts: one per Hyperlane message). Each schedule: faults and
 * crashes on chain A, 1–3 concurrent attempts (the same withdrawal posted again, or relayer passes
 * side by side), time passing, the retry job or more relayer passes, a last attempt. Then: one
 * payout landed per nullifier and one release per message (nothing twice), and it did land
 * (nothing lost); the recipient got exactly the amount; the job is paid / the record completed,
 * naming the transaction that landed; no job or record left open; every answer documented.
 * Both jobs are driven here, not by the runtime's timers (a timer pass that crashed would hold its
 * timer, and the runtime's stop, forever). `npm test`: CHAOS_RUNS (default 8); `npm run chaos`: 1,000.
 */
let rt: TestRuntime;
let alice: HttpClient;
let anonymous: HttpClient;
let aliceId: string;
let wallet: { id: string; address: string };
let walletB: { id: string; address: string };
let chain: FaultyChainA;
let signIn: () => Promise<void>;
let signedInAt = 0;
const report: Report = {};
const POOL = 'sol-0.1';
const DENOMINATION = 100_000_000n;
const PASS = 'chaos-release-1';
// 505: its first eight schedules draw every fault of the layer for the requests (in-flight twice, lagging first), and lagging, in-flight and crashes in the passes after.
const SEED = Number(process.env.CHAOS_SEED ?? 505);
// The requests' faults (chaos-helpers.ts), and faults for the passes that follow them (the retry job, the relayer), which may crash too.
const schedule = fc.record({ ...scheduleFields, later: fc.array(fc.constantFrom(...FAULTS), { maxLength: 2 }) });

beforeAll(async () => {
  rt = await startTestRuntime({ RATE_LIMIT_MULTIPLIER: '1000', CHAIN_FAULTS: 'slot-ms=0' }, undefined, { withoutJobs: ['transfer-retry', 'bridge-relayer'] });
  alice = rt.client();
  anonymous = rt.client();
  const me = await signedInUser(alice);
  aliceId = me.user.id;
  signIn = async () => {
    const login = await alice.post('/api/auth/login', { username: me.username, password: me.password });
    expect(login.status).toBe(200);
    signedInAt = clock.nowMs();
  };
  signedInAt = clock.nowMs();
  wallet = (await alice.post('/api/wallets', { chain: 'a', name: 'main' })).json.wallet;
  walletB = (await alice.post('/api/wallets', { chain: 'b', name: 'main', password: PASS })).json.wallet;
  for (let i = 0; i < 3; i++) expect((await alice.post(`/api/wallets/${wallet.id}/airdrop`, { amount: 10 })).status).toBe(200);
  expect((await alice.post(`/api/wallets/${walletB.id}/airdrop`, { amount: 100 })).status).toBe(200); // STRK for the withdrawals' fees
  chain = (await (await import('#lib/chains/chain-a/index.ts')).chainA()) as FaultyChainA;
}, 300_000);
afterAll(async () => {
  await (await import('#lib/zk/groth16.ts')).terminateCurves().catch(() => undefined);
  await rt?.stop();
  printReport(report);
});

const lamports = async (a: string | PublicKey) => BigInt(await chain.rpc.getBalance(new PublicKey(a)));
const relayOnce = async () => (await import('#lib/bridge/relayer.ts')).relayOnce();
const retryOnce = async () => (await import('#lib/transfer/retry.ts')).retryTransfersOnce();

/** Before each schedule: time passes (the user signs in again each simulated day), the wallet keeps funds, no fault left queued. */
async function nextSchedule() {
  chain.clearInjected();
  advanceClock(120_000);
  if (clock.nowMs() - signedInAt > 86_400_000) await signIn();
  if ((await lamports(wallet.address)) < 5_000_000_000n) await chain.airdrop(new PublicKey(wallet.address), 50_000_000_000n);
}

/** A schedule's faults on sends; `lagging` on a status read too (the node behind answers the settle's history search). */
function inject(s: { faults: string[]; readFault: boolean }) {
  for (const f of s.faults) if (f !== 'none') injectOne(f as ChainAFault);
  if (s.readFault) chain.inject('rate-limited', 'read');
}
function injectOne(f: ChainAFault) {
  chain.inject(f);
  if (f === 'lagging') chain.inject('lagging', 'read', 'getSignatureStatuses');
}

describe('chaos: shielded-payout', () => {
  it(
    `${RUNS} schedules of faults, crashes and withdrawals posted again: one payout per nullifier, paid`,
    async () => {
      await measured(report, 'shielded-payout', chain, () =>
        fc.assert(
          fc.asyncProperty(schedule, async (s) => {
            await nextSchedule();
            // A note in the pool, deposited without faults; its withdrawal proved to a fresh recipient.
            const note = createNote(POOL);
            const dep = await alice.post('/api/transfer/deposit', { pool: POOL, walletId: wallet.id, commitment: await noteCommitment(note) });
            expect(dep.status, JSON.stringify(dep.json)).toBe(200);
            const leaves = await fetchLeaves(async (path) => (await anonymous.get(path)).json, POOL);
            const recipient = Keypair.generate().publicKey.toBase58();
            const proof = await proveWithdrawal(note, leaves, recipient, { relayerFee: 0n });
            const landedBefore = new Set(chain.landedSignatures());

            inject(s);
            const post = () => send(rt, anonymous, chain, '/api/transfer/withdraw', proof, `chaos-payout-${proof.nullifierHash}`);
            const answers: Answer[] = await Promise.all(Array.from({ length: s.concurrent }, post));
            // Time passes: the leases of dead requests lapse; retry passes side by side (faults, crashes); blockhashes expire; the retry job pays; the withdrawal posted once more.
            chain.clearInjected();
            advanceClock(120_000);
            chain.advanceSlots(1); // a slot passes: a blockhash newer than the first send's, which may still be in flight
            for (const f of s.later) injectOne(f);
            await Promise.all(Array.from({ length: s.concurrent }, () => crashable(chain, retryOnce)));
            chain.clearInjected();
            advanceClock(120_000);
            await retryOnce();
            await chain.applied();
            chain.advanceSlots(200);
            advanceClock(120_000);
            await retryOnce();
            answers.push(await post());

            // Read first: the cluster's answer includes what landed meanwhile (an in-flight transaction).
            const received = await lamports(recipient);
            await chain.applied();
            const landed = chain.landedSignatures().filter((sig) => !landedBefore.has(sig));
            // One payout per nullifier, and it landed: nothing twice, nothing lost.
            expect(landed).toHaveLength(1);
            expect(received).toBe(DENOMINATION);
            const spent = (await anonymous.get(`/api/transfer/nullifiers/${proof.nullifierHash}`)).json;
            expect(spent.spent).toBe(true);
            const job = (await anonymous.get(`/api/transfer/jobs/${spent.jobId}`)).json;
            expect(job).toMatchObject({ status: 'paid', txHash: landed[0], amount: DENOMINATION.toString() });
            // Every answer that took the withdrawal names that one job.
            for (const a of answers) if (a !== 'crashed' && a.status === 200) expect(a.json.jobId).toBe(spent.jobId);
            const { listOpenJobs } = await import('#lib/data/shielded-withdrawals.ts');
            expect(await listOpenJobs(new Date(clock.nowMs() + 86_400_000).toISOString())).toEqual([]);
            expectDocumented(answers, { 409: ['NULLIFIER_SPENT'] });
            scheduleDone(report, 'shielded-payout', answers.length);
          }),
          { numRuns: RUNS, seed: SEED, endOnFailure: true },
        ),
      );
    },
    PROPERTY_TIMEOUT,
  );
});

describe('chaos: bridge-release', () => {
  beforeAll(async () => {
    // Synthetic SOL on chain B for the withdrawals: a deposit from the chain A wallet, relayed without faults.
    const d = await alice.post('/api/bridge/initiate', {
      bridgeType: 'chaina-chainb',
      direction: 'deposit',
      token: 'SOL',
      amount: '10',
      destAddress: walletB.address,
      walletId: wallet.id,
    });
    expect(d.status, JSON.stringify(d.json)).toBe(200);
    for (let i = 0; i < 5; i++) await relayOnce();
    expect((await alice.get(`/api/bridge/status/${d.json.transaction.id}`)).json.transaction.status).toBe('completed');
  }, 120_000);

  it(
    `${RUNS} schedules of faults, crashes and relayers side by side: one release per message, landed`,
    async () => {
      await measured(report, 'bridge-release', chain, () =>
        fc.assert(
          fc.asyncProperty(schedule, async (s) => {
            await nextSchedule();
            const dest = Keypair.generate().publicKey.toBase58();
            const amount = BigInt(s.milli) * 1_000_000n;
            const landedBefore = new Set(chain.landedSignatures());
            const answers: Answer[] = [];
            const w = await alice.post('/api/bridge/initiate', {
              bridgeType: 'chaina-chainb',
              direction: 'withdraw',
              token: 'SOL',
              amount: String(s.milli / 1000),
              destAddress: dest,
              walletId: walletB.id,
              password: PASS,
            });
            answers.push({ status: w.status, json: w.json });
            expect(w.status, JSON.stringify(w.json)).toBe(200);
            const id: string = w.json.transaction.id;

            inject(s);
            // Relayers side by side (two timers, two Lambda instances), some of them dying mid-way.
            const passes = await Promise.all(Array.from({ length: s.concurrent }, () => crashable(chain, relayOnce)));
            // Time passes (a dead relayer holds nothing: releases have no lease); more passes side by side (faults, crashes); blockhashes expire; more passes.
            chain.clearInjected();
            advanceClock(120_000);
            chain.advanceSlots(1); // a slot passes: a blockhash newer than the first send's, which may still be in flight
            for (const f of s.later) injectOne(f);
            await Promise.all(Array.from({ length: s.concurrent }, () => crashable(chain, relayOnce)));
            chain.clearInjected();
            for (let i = 0; i < 3; i++) await relayOnce();
            await chain.applied();
            chain.advanceSlots(200);
            for (let i = 0; i < 3; i++) await relayOnce();

            const received = await lamports(dest);
            await chain.applied();
            const landed = chain.landedSignatures().filter((sig) => !landedBefore.has(sig));
            // One release per message, and it landed; the recipient got exactly the amount.
            expect(landed).toHaveLength(1);
            expect(received).toBe(amount);
            const { readBridge, listOpenBridges } = await import('#lib/data/bridge-transfers.ts');
            const record = (await readBridge(aliceId, id))!;
            expect(record).toMatchObject({ status: 'completed', destTxHash: landed[0] });
            const { readRelease } = await import('#lib/data/bridge-releases.ts');
            expect((await readRelease(record.messageId!))?.signature).toBe(landed[0]);
            expect((await listOpenBridges()).map((b) => b.id)).not.toContain(id);
            const status = await alice.get(`/api/bridge/status/${id}`);
            answers.push({ status: status.status, json: status.json });
            expect(status.json.transaction).toMatchObject({ status: 'completed', destTxHash: landed[0] });
            expectDocumented(answers);
            scheduleDone(report, 'bridge-release', answers.length + passes.length);
          }),
          { numRuns: RUNS, seed: SEED, endOnFailure: true },
        ),
      );
    },
    PROPERTY_TIMEOUT,
  );
});
