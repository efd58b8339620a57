import { Keypair, PublicKey } from '@solana/web3.js';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FaultyChainA } from '#lib/chains/chain-a/faults.ts';
import { advanceClock, clock } from '#lib/clock.ts';
import { startTestRuntime, type HttpClient, type TestRuntime } from '../support/runtime.ts';
import {
  expectDocumented,
  expectJournalSettled,
  expectAccruedOnce,
  landedOnceJournaled,
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
 * Chaos as properties for the other journaled chain A moves (docs/value-moves.md "Which moves go
 * through it"; chaos.test.ts has the native coin's compression, chaos-moves.test.ts the moves with
 * records of their own): SPL tokens compressed and decompressed, a compressed transfer, mint-to,
 * the test-token faucet (the service's mint authority signs) and a reward claim (the treasury's
 * mint, one per epoch and account). Each schedule: faults and crashes on the chain, 1–3 concurrent
 * requests with one Idempotency-Key, time passing, the transfer retry job, a last retry. Then: at
 * most one transaction landed for the key and it is journaled as landed; the balances it moves
 * changed by exactly what landed; an answer that says it landed names a landed transaction; the
 * claim is paid exactly when its mint landed and free again otherwise (nothing lost: a new claim
 * then pays it once); no move open; every answer documented.
 * `npm test`: 2 schedules per move (seed 555: an in-flight send under three requests, then a
 * request that dies waiting for a read under three); `npm run chaos`: CHAOS_RUNS (1,000).
 */
const runs = process.env.CHAOS_RUNS ? RUNS : 2;
const seed = Number(process.env.CHAOS_SEED ?? 555);
const EPOCH_MS = 3_600_000;
let rt: TestRuntime;
let alice: HttpClient;
let userId: string;
let wallet: { id: string; address: string };
let chain: FaultyChainA;
let mint: PublicKey;
let testMint: PublicKey;
let rewardMint: PublicKey;
const recipient = Keypair.generate().publicKey;
let keys = 0;
const report: Report = {};
// Each schedule moves the clock minutes (a claim's an hour): a thousand of them outlive a session.
let signIn: () => Promise<void>;
let signedInAt = 0;

const ops = () => import('#lib/chains/chain-a/operations.ts');
const tokens = async (owner: PublicKey | string, m: PublicKey) => (await ops()).tokenBalance(chain, new PublicKey(owner), m);
const compressedTokens = async (owner: PublicKey | string) => (await ops()).compressedTokenBalance(chain, new PublicKey(owner), mint);
const lamports = async (a: string) => BigInt(await chain.rpc.getBalance(new PublicKey(a)));

/** A setup request (no faults queued); a loaded machine's DynamoDB Local may answer 503 now and then: tried again. */
async function ok(path: string, body: object) {
  let r = await alice.post(path, body);
  for (let i = 0; i < 5 && r.status === 503; i++) r = await alice.post(path, body);
  expect(r.status, `${path}: ${JSON.stringify(r.json)}`).toBe(200);
  return r.json;
}

// The shared schedule, and one read fault in two a crash: the request dies waiting for the node,
// after it reserved what it pays for (a claim, the wallet) and before it signed anything.
const schedule = fc.record({ ...scheduleFields, readCrash: fc.boolean() });

/** Points in a fresh epoch (a compression's fee), then the clock past its end and grace minute: the epoch to claim. */
async function earnedEpoch(): Promise<number> {
  const { epochOf } = await import('#lib/rewards/rules.ts');
  const epoch = epochOf(clock.nowMs());
  await ok('/api/compression/compress-native', { walletId: wallet.id, amount: 0.001 });
  advanceClock(EPOCH_MS - (clock.nowMs() % EPOCH_MS) + 70_000);
  return epoch;
}

beforeAll(async () => {
  // The jobs that read chain A run here by the schedule only: on their timers they would take a fault
  // queued for the request (a crashed pass would hold its timer, and the stop, forever).
  rt = await startTestRuntime({ RATE_LIMIT_MULTIPLIER: '1000', REWARDS_EPOCH_SECONDS: '3600', CHAIN_FAULTS: 'slot-ms=0' }, undefined, {
    withoutJobs: ['transfer-retry', 'bridge-relayer', 'rewards-retry', 'close-reward-epochs'],
  });
  alice = rt.client();
  // A loaded machine's DynamoDB Local may refuse the first registration (503): once more.
  const me = await signedInUser(alice).catch(() => signedInUser(alice));
  userId = me.user.id;
  signIn = async () => {
    await ok('/api/auth/login', { username: me.username, password: me.password });
    signedInAt = clock.nowMs();
  };
  signedInAt = clock.nowMs();
  wallet = (await alice.post('/api/wallets', { chain: 'a', name: 'main' })).json.wallet;
  for (let i = 0; i < 3; i++) await ok(`/api/wallets/${wallet.id}/airdrop`, { amount: 10 });
  chain = (await (await import('#lib/chains/chain-a/index.ts')).chainA()) as FaultyChainA;
  // A token of alice's (she is its mint authority), a million of it in her token account, a hundred thousand compressed.
  mint = new PublicKey((await ok('/api/compression/create-token', { walletId: wallet.id, decimals: 6 })).mintAddress);
  await ok('/api/compression/mint-to', { walletId: wallet.id, mint: mint.toBase58(), amount: 1_000_000 });
  await ok('/api/compression/compress-token', { walletId: wallet.id, mint: mint.toBase58(), amount: 100_000 });
  testMint = new PublicKey((await ok('/api/transfer/test-tokens', { walletId: wallet.id, amount: 1 })).mint);
  // The first claim sets the reward token up (its treasury and mint).
  rewardMint = new PublicKey((await ok('/api/rewards/claim', { epoch: await earnedEpoch(), walletId: wallet.id })).mint);
}, 300_000);
afterAll(async () => {
  printReport(report); // first: a request that crashed may hold the stop
  await rt?.stop();
});

/** One move's request for one schedule: what it moves (`measure`), by how much per landed transaction (`per`), and its own record's check. */
interface Prepared {
  route: string;
  body: object;
  measure(): Promise<bigint>;
  per: bigint;
  /** After the invariants: the move's own record agrees with what landed. */
  record?(landed: string | undefined): Promise<void>;
  codes?: Record<number, string[]>;
  /** A compression that earns reward points (lib/compression/compression.ts): each landed one accrues once. */
  accrues?: true;
}

const units = (milli: number) => BigInt(milli) * 1_000n; // milli/1000 of a 6-decimal token

const MOVES: Record<string, (milli: number) => Promise<Prepared>> = {
  // Conservation: what leaves the token account arrives compressed (the measure moves twice the amount).
  'compress-token': async (milli) => ({
    route: '/api/compression/compress-token',
    body: { walletId: wallet.id, mint: mint.toBase58(), amount: milli / 1000 },
    measure: async () => (await compressedTokens(wallet.address)) - (await tokens(wallet.address, mint)),
    per: 2n * units(milli),
    accrues: true,
  }),
  'decompress-token': async (milli) => ({
    route: '/api/compression/decompress-token',
    body: { walletId: wallet.id, mint: mint.toBase58(), amount: milli / 1000 },
    measure: async () => (await tokens(wallet.address, mint)) - (await compressedTokens(wallet.address)),
    per: 2n * units(milli),
    accrues: true,
  }),
  transfer: async (milli) => ({
    route: '/api/compression/transfer',
    body: { walletId: wallet.id, mint: mint.toBase58(), to: recipient.toBase58(), amount: milli / 1000 },
    measure: async () => (await compressedTokens(recipient)) - (await compressedTokens(wallet.address)),
    per: 2n * units(milli),
    accrues: true,
  }),
  'mint-to': async (milli) => ({
    route: '/api/compression/mint-to',
    body: { walletId: wallet.id, mint: mint.toBase58(), to: recipient.toBase58(), amount: milli / 1000 },
    measure: () => tokens(recipient, mint),
    per: units(milli),
  }),
  'test-tokens': async (milli) => ({
    route: '/api/transfer/test-tokens',
    body: { walletId: wallet.id, amount: milli },
    measure: () => tokens(wallet.address, testMint),
    per: BigInt(milli) * 1_000_000n,
  }),
  'reward-claim': async () => {
    const repo = await import('#lib/data/rewards-ledger.ts');
    const { accountOf, REWARD_TOKEN } = await import('#lib/rewards/rules.ts');
    const epoch = await earnedEpoch();
    const account = accountOf(userId);
    const points = (await repo.epochAccount(epoch, account))?.points ?? 0;
    expect(points).toBeGreaterThan(0);
    const amount = BigInt(points) * REWARD_TOKEN.perPoint;
    const balance = () => tokens(wallet.address, rewardMint);
    return {
      route: '/api/rewards/claim',
      body: { epoch, walletId: wallet.id },
      measure: balance,
      per: amount,
      async record(landed) {
        const claim = await repo.getClaim(epoch, account);
        const before = await balance();
        const again = await alice.post('/api/rewards/claim', { epoch, walletId: wallet.id });
        if (landed) {
          // paid once, naming its mint; never again
          expect(claim).toMatchObject({ status: 'paid', txHash: landed });
          expect(again.status, JSON.stringify(again.json)).toBe(409);
          expect(again.json.error).toBe('ALREADY_CLAIMED');
          expect(await balance()).toBe(before);
        } else {
          // released (nothing was paid): the reward is not lost, a new claim pays it once
          expect(claim).toBeUndefined();
          expect(again.status, JSON.stringify(again.json)).toBe(200);
          expect(await balance()).toBe(before + amount);
        }
      },
      codes: { 409: ['ALREADY_CLAIMED'] },
    };
  },
};

for (const [name, prepare] of Object.entries(MOVES)) {
  describe(`chaos: ${name}`, () => {
    it(
      `${runs} schedules of faults, crashes and retries keep every invariant`,
      async () => {
        await measured(report, name, chain, () =>
          fc.assert(
            fc.asyncProperty(schedule, async (s) => {
              chain.clearInjected();
              advanceClock(120_000);
              if (clock.nowMs() - signedInAt > 86_400_000) await signIn();
              if ((await lamports(wallet.address)) < 10_000_000_000n) await chain.airdrop(new PublicKey(wallet.address), 20_000_000_000n);
              const p = await prepare(s.milli);
              const key = `chaos-${name}-${++keys}`;
              const before = await p.measure();
              const landedBefore = new Set(chain.landedSignatures());
              for (const f of s.faults) if (f !== 'none') chain.inject(f);
              if (s.readFault) chain.inject(s.readCrash ? 'crash-before' : 'rate-limited', 'read');
              const answers: Answer[] = await Promise.all(Array.from({ length: s.concurrent }, () => send(rt, alice, chain, p.route, p.body, key)));
              // Time passes: locks of dead requests lapse, blockhashes expire; the retry job settles; a last retry.
              chain.clearInjected();
              const { retryTransfersOnce } = await import('#lib/transfer/retry.ts');
              advanceClock(120_000);
              await retryTransfersOnce();
              await chain.applied();
              chain.advanceSlots(200);
              await retryTransfersOnce();
              answers.push(await send(rt, alice, chain, p.route, p.body, key));
              advanceClock(120_000);
              await retryTransfersOnce();

              // nothing twice for one key; every transaction that landed is journaled as landed
              const landed = await landedOnceJournaled(chain, landedBefore, answers);
              // the chain moved exactly what the journal says landed
              expect(await p.measure()).toBe(before + p.per * BigInt(landed.length));
              // nothing lost: an answer that says it landed has its transaction on the chain; the record agrees
              for (const a of answers) if (a !== 'crashed' && a.status === 200) expect(landed).toContain(a.json.txHash);
              await p.record?.(landed[0]);
              // every move settled
              await expectJournalSettled();
              if (p.accrues) await expectAccruedOnce(userId, landed);
              expectDocumented(answers, p.codes);
              scheduleDone(report, name, answers.length);
            }),
            { numRuns: runs, seed, endOnFailure: true },
          ),
        );
      },
      PROPERTY_TIMEOUT,
    );
  });
}
