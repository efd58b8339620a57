import { Keypair, PublicKey } from '@solana/web3.js';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNote, noteCommitment } from '#lib/client/transfer-note.ts';
import type { FaultyChainA } from '#lib/chains/chain-a/faults.ts';
import { advanceClock, clock } from '#lib/clock.ts';
import { startTestRuntime, type HttpClient, type TestRuntime } from '../support/runtime.ts';
import {
  expectDocumented,
  expectJournalSettled,
  landedOnceJournaled,
  measured,
  printReport,
  request as send,
  PROPERTY_TIMEOUT,
  RUNS,
  scheduleDone,
  schedule,
  SEED,
  type Answer,
  type Report,
} from './chaos-helpers.ts';
import { signedInUser } from './identity-helpers.ts';

/**
 * Chaos as properties for the journaled moves whose request needs a record of its own per
 * schedule (chaos.test.ts has compression): a shielded deposit (a fresh commitment), a swap (a
 * fresh quote), a sweep (a one-time address funded by a swap), token creation, and the service's
 * own bridge deposit. Each schedule: faults and crashes on the chain, 1–3 concurrent requests with
 * one Idempotency-Key, time passing, the transfer retry job (deposits and the journal), a last
 * retry. Then: at most one transaction landed for the key and it is journaled as landed; what it
 * moves on chain is exactly what landed (nothing twice, nothing lost); the move's own record says
 * so (the deposit complete, the order executed — or neither, when nothing landed); no move open;
 * every answer documented. `npm test`: CHAOS_RUNS (default 8) per move; `npm run chaos`: 1,000.
 */
let rt: TestRuntime;
let alice: HttpClient;
let wallet: { id: string; address: string };
let chain: FaultyChainA;
let sUSD: PublicKey;
let keys = 0;
const report: Report = {};
// Each schedule moves the clock six minutes: a thousand of them outlive a session, so the user signs in again each simulated day.
let signIn: () => Promise<void>;
let signedInAt = 0;
const POOL = 'sol-0.1';
const DENOMINATION = 100_000_000n;

beforeAll(async () => {
  rt = await startTestRuntime({ RATE_LIMIT_MULTIPLIER: '1000', CHAIN_FAULTS: 'slot-ms=0' });
  alice = rt.client();
  const me = await signedInUser(alice);
  signIn = async () => {
    const login = await alice.post('/api/auth/login', { username: me.username, password: me.password });
    expect(login.status).toBe(200);
    signedInAt = clock.nowMs();
  };
  signedInAt = clock.nowMs();
  wallet = (await alice.post('/api/wallets', { chain: 'a', name: 'main' })).json.wallet;
  for (let i = 0; i < 10; i++) expect((await alice.post(`/api/wallets/${wallet.id}/airdrop`, { amount: 10 })).status).toBe(200);
  chain = (await (await import('#lib/chains/chain-a/index.ts')).chainA()) as FaultyChainA;
  sUSD = new PublicKey((await alice.get('/api/swap/pairs')).json.pairs[0].quote.mint);
}, 300_000);
afterAll(async () => {
  await (await import('#lib/zk/groth16.ts')).terminateCurves().catch(() => undefined);
  await rt?.stop();
  printReport(report);
});

const lamports = async (a: string | PublicKey) => BigInt(await chain.rpc.getBalance(new PublicKey(a)));
const tokens = async (owner: string | PublicKey) => (await import('#lib/chains/chain-a/operations.ts')).tokenBalance(chain, new PublicKey(owner), sUSD);

/**
 * One move's request, prepared for one schedule: its body, the balance it moves (`measure`) and by
 * how much per landed transaction (`per`, read after settlement), and the check of its own record.
 */
interface Prepared {
  body: object;
  measure(): Promise<bigint>;
  per(landed: string | undefined): Promise<bigint>;
  record?(landed: string | undefined): Promise<void>;
}
interface Move {
  route: (p: Prepared) => string;
  prepare(milli: number): Promise<Prepared & { path?: string }>;
  /** Error codes of this route's own documented answers. */
  codes?: Record<number, string[]>;
}

async function quote(milli: number, output: 'wallet' | 'one-time') {
  const q = await alice.post('/api/swap/quote', { walletId: wallet.id, from: 'SOL', to: 'sUSD', amount: milli / 100, slippageBps: 500, output });
  expect(q.status, JSON.stringify(q.json)).toBe(200);
  return q.json as { quoteId: string; amountOut: string };
}

const MOVES: Record<string, Move> = {
  'shielded-deposit': {
    route: () => '/api/transfer/deposit',
    async prepare() {
      const pool = (await alice.get(`/api/transfer/pools/${POOL}`)).json as { address: string };
      const commitment = await noteCommitment(createNote(POOL));
      return {
        body: { pool: POOL, walletId: wallet.id, commitment },
        measure: () => lamports(pool.address),
        per: async () => DENOMINATION,
        async record(landed) {
          const { deposits } = (await alice.get('/api/transfer/deposits')).json as { deposits: { commitment: string; status: string; txHash: string }[] };
          const d = deposits.find((x) => x.commitment === BigInt(commitment).toString());
          if (landed) expect(d).toMatchObject({ status: 'complete', txHash: landed });
          else expect(d).toBeUndefined();
        },
      };
    },
    codes: { 400: ['INVALID_COMMITMENT'] },
  },
  swap: {
    route: () => '/api/swap/execute',
    async prepare(milli) {
      const q = await quote(milli, 'wallet');
      return {
        body: { quoteId: q.quoteId },
        measure: () => tokens(wallet.address),
        per: async () => BigInt((await alice.get(`/api/swap/orders/${q.quoteId}`)).json.order.amountOut),
        async record(landed) {
          const { order } = (await alice.get(`/api/swap/orders/${q.quoteId}`)).json;
          if (landed) expect(order).toMatchObject({ status: 'executed', txHash: landed });
          else expect(order.status).not.toBe('executed');
        },
      };
    },
    codes: { 409: ['QUOTE_USED', 'SLIPPAGE_EXCEEDED'], 410: ['QUOTE_EXPIRED'] },
  },
  sweep: {
    route: (p) => (p as Prepared & { path: string }).path,
    async prepare(milli) {
      const q = await quote(milli, 'one-time');
      const x = await alice.post('/api/swap/execute', { quoteId: q.quoteId });
      expect(x.status, JSON.stringify(x.json)).toBe(200);
      const to = Keypair.generate().publicKey;
      // Half of it, not all: a second sweep would then find enough to move, and be seen.
      const half = ((await tokens(x.json.outputAddress)) / 2n / 1000n) * 1000n;
      const body = { to: to.toBase58(), amount: Number(half / 1000n) / 1000 };
      return { path: `/api/swap/addresses/${x.json.outputAddress}/sweep`, body, measure: () => tokens(to), per: async () => half };
    },
    codes: { 422: ['NOTHING_TO_SWEEP'] },
  },
  'create-token': {
    route: () => '/api/compression/create-token',
    async prepare() {
      // What a new mint moves is its rent and fee; the invariant here: one mint at most, journaled.
      return { body: { walletId: wallet.id, decimals: 6 }, measure: async () => 0n, per: async () => 0n };
    },
  },
  'bridge-deposit': {
    route: () => '/api/bridge/initiate',
    async prepare(milli) {
      const { routeToken } = await import('#lib/bridge/routes.ts');
      const { escrowAccount } = await import('#lib/bridge/chain-a-source.ts');
      const escrow = escrowAccount(routeToken('chaina-chainb', 'SOL')!);
      const dest = `0x0${(100_000 + ++keys).toString(16).padStart(63, '7')}`;
      const amount = milli / 1000;
      return {
        body: { bridgeType: 'chaina-chainb', direction: 'deposit', token: 'SOL', amount: String(amount), destAddress: dest, walletId: wallet.id },
        measure: () => lamports(escrow),
        per: async () => BigInt(milli) * 1_000_000n,
      };
    },
  },
};

for (const [name, move] of Object.entries(MOVES)) {
  describe(`chaos: ${name}`, () => {
    it(
      `${RUNS} schedules of faults, crashes and retries keep every invariant`,
      async () => {
        await measured(report, name, chain, () =>
          fc.assert(
            fc.asyncProperty(schedule, async (s) => {
              chain.clearInjected();
              advanceClock(120_000);
              if (clock.nowMs() - signedInAt > 86_400_000) await signIn();
              // Thousands of schedules spend more than the first airdrops (a deposit is 0.1 SOL).
              if ((await lamports(wallet.address)) < 20_000_000_000n) await chain.airdrop(new PublicKey(wallet.address), 50_000_000_000n);
              const p = await move.prepare(s.milli);
              const route = move.route(p as Prepared & { path: string });
              const key = `chaos-${name}-${++keys}`;
              const before = await p.measure();
              const landedBefore = new Set(chain.landedSignatures());
              for (const f of s.faults) if (f !== 'none') chain.inject(f);
              if (s.readFault) chain.inject('rate-limited', 'read');
              const answers: Answer[] = await Promise.all(Array.from({ length: s.concurrent }, () => send(rt, alice, chain, route, p.body, key)));
              // Time passes: locks of dead requests lapse, blockhashes expire; the retry job settles; a last retry.
              chain.clearInjected();
              const { retryTransfersOnce } = await import('#lib/transfer/retry.ts');
              advanceClock(120_000);
              await retryTransfersOnce();
              await chain.applied();
              chain.advanceSlots(200);
              await retryTransfersOnce();
              answers.push(await send(rt, alice, chain, route, p.body, key));
              advanceClock(120_000);
              await retryTransfersOnce();

              // nothing twice for one key; every transaction that landed is journaled as landed
              const landed = await landedOnceJournaled(chain, landedBefore, answers);
              // the chain moved exactly what the journal says landed
              expect(await p.measure()).toBe(before + (await p.per(landed[0])) * BigInt(landed.length));
              // nothing lost: an answer that says it landed has its transaction on the chain; the record agrees
              for (const a of answers) if (a !== 'crashed' && a.status === 200 && a.json.txHash) expect(landed).toContain(a.json.txHash);
              await p.record?.(landed[0]);
              // every move settled
              await expectJournalSettled();
              expectDocumented(answers, move.codes);
              scheduleDone(report, name, answers.length);
            }),
            { numRuns: RUNS, seed: SEED, endOnFailure: true },
          ),
        );
      },
      PROPERTY_TIMEOUT,
    );
  });
}
