import { PublicKey } from '@solana/web3.js';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FaultyChainA } from '#lib/chains/chain-a/faults.ts';
import { advanceClock } from '#lib/clock.ts';
import { startTestRuntime, type HttpClient, type TestRuntime } from '../support/runtime.ts';
import {
  expectAccruedOnce,
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
  type Report,
} from './chaos-helpers.ts';
import { signedInUser } from './identity-helpers.ts';

/**
 * Chaos as properties (issue 36): for each value move routed through the journal, random schedules
 * of chain faults (lib/chains/chain-a/faults.ts: timeouts, 429, 5xx, dropped, late, lands-later,
 * a crash before or after the chain took the send) and concurrent retries with one Idempotency-Key;
 * then the journal's pass and a last retry. At the end: the chain's balance moved exactly by what
 * the journal says landed; nothing twice for one key; every transaction that landed is in the
 * journal as landed; no move left open; its reward points recorded once; every answer one
 * docs/architecture.md's error codes document.
 * `npm test`: a fixed seed and CHAOS_RUNS (default 8) schedules per move; `npm run chaos`: 1,000.
 * The other journaled moves, whose requests need a fresh record each (a commitment, a quote, a
 * funded one-time address): chaos-moves.test.ts.
 */
let rt: TestRuntime;
let alice: HttpClient;
let wallet: { id: string; address: string };
let chain: FaultyChainA;
let keys = 0;
let userId: string;

beforeAll(async () => {
  rt = await startTestRuntime({ RATE_LIMIT_MULTIPLIER: '1000', CHAIN_FAULTS: 'slot-ms=0' });
  alice = rt.client();
  userId = (await signedInUser(alice)).user.id;
  wallet = (await alice.post('/api/wallets', { chain: 'a', name: 'main' })).json.wallet;
  for (let i = 0; i < 3; i++) expect((await alice.post(`/api/wallets/${wallet.id}/airdrop`, { amount: 10 })).status).toBe(200);
  expect((await alice.post('/api/compression/compress-native', { walletId: wallet.id, amount: 5 })).status).toBe(200);
  chain = (await (await import('#lib/chains/chain-a/index.ts')).chainA()) as FaultyChainA;
}, 120_000);
afterAll(async () => {
  await rt?.stop();
  printReport(report);
});

const report: Report = {};

const compressed = async () => BigInt(String(await chain.rpc.getCompressedBalanceByOwner(new PublicKey(wallet.address))));

type Move = { route: string; units: bigint; body: (amount: number) => object; sign: 1n | -1n };
const MOVES: Record<string, Move> = {
  'compress-native': { route: '/api/compression/compress-native', units: 1_000_000n, body: (a) => ({ walletId: wallet.id, amount: a }), sign: 1n },
  'decompress-native': { route: '/api/compression/decompress-native', units: 1_000_000n, body: (a) => ({ walletId: wallet.id, amount: a }), sign: -1n },
};

const request = (route: string, body: object, key: string) => send(rt, alice, chain, route, body, key);

for (const [name, move] of Object.entries(MOVES)) {
  describe(`chaos: ${name}`, () => {
    it(
      `${RUNS} schedules of faults, crashes and retries keep every invariant`,
      async () => {
        await measured(report, name, chain, () =>
          fc.assert(
            fc.asyncProperty(schedule, async (s) => {
              chain.clearInjected();
              const key = `chaos-${name}-${++keys}`;
              const before = await compressed();
              const landedBefore = new Set(chain.landedSignatures());
              for (const f of s.faults) if (f !== 'none') chain.inject(f);
              if (s.readFault) chain.inject('rate-limited', 'read');
              const amount = s.milli / 1000;
              const answers = await Promise.all(Array.from({ length: s.concurrent }, () => request(move.route, move.body(amount), key)));
              // Time passes: locks of dead requests lapse, blockhashes expire; the journal's pass settles; a last retry.
              chain.clearInjected();
              advanceClock(120_000);
              const { resolveMovesOnce } = await import('#lib/moves/journal.ts');
              await resolveMovesOnce();
              await chain.applied();
              chain.advanceSlots(200);
              await resolveMovesOnce();
              answers.push(await request(move.route, move.body(amount), key));
              await resolveMovesOnce();

              // nothing twice for one key; every transaction that landed is in the journal, as landed
              const landed = await landedOnceJournaled(chain, landedBefore, answers);
              // the chain moved exactly what the journal says landed
              const units = BigInt(Math.round(amount * 1000)) * move.units;
              expect(await compressed()).toBe(before + move.sign * units * BigInt(landed.length));
              // nothing lost: an answer that says it landed (200) has its transaction on the chain
              for (const a of answers) if (a !== 'crashed' && a.status === 200) expect(landed).toContain(a.json.txHash);
              // every move settled
              await expectJournalSettled();
              // its reward points recorded once
              await expectAccruedOnce(userId, landed);
              // every answer documented
              expectDocumented(answers);
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
