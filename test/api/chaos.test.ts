import { PublicKey } from '@solana/web3.js';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAULTS, type ChainAFault, type FaultyChainA } from '#lib/chains/chain-a/faults.ts';
import { advanceClock, clock } from '#lib/clock.ts';
import { startTestRuntime, type HttpClient, type TestRuntime } from '../support/runtime.ts';
import { signedInUser } from './identity-helpers.ts';

/**
 * Chaos as properties (issue 36): for each value move routed through the journal, random schedules
 * of chain faults (lib/chains/chain-a/faults.ts: timeouts, 429, 5xx, dropped, late, lands-later,
 * a crash before or after the chain took the send) and concurrent retries with one Idempotency-Key;
 * then the journal's pass and a last retry. At the end: the chain's balance moved exactly by what
 * the journal says landed; nothing twice for one key; every transaction that landed is in the
 * journal as landed; no move left open; every answer one docs/architecture.md's error codes document.
 * `npm test`: a fixed seed and CHAOS_RUNS (default 8) schedules per move; `npm run chaos`: 1,000.
 */
const RUNS = Number(process.env.CHAOS_RUNS ?? 8);
const SEED = Number(process.env.CHAOS_SEED ?? 36);
let rt: TestRuntime;
let alice: HttpClient;
let wallet: { id: string; address: string };
let chain: FaultyChainA;
let keys = 0;

beforeAll(async () => {
  rt = await startTestRuntime({ RATE_LIMIT_MULTIPLIER: '1000', CHAIN_FAULTS: 'slot-ms=0' });
  alice = rt.client();
  await signedInUser(alice);
  wallet = (await alice.post('/api/wallets', { chain: 'a', name: 'main' })).json.wallet;
  for (let i = 0; i < 3; i++) expect((await alice.post(`/api/wallets/${wallet.id}/airdrop`, { amount: 10 })).status).toBe(200);
  expect((await alice.post('/api/compression/compress-native', { walletId: wallet.id, amount: 5 })).status).toBe(200);
  chain = (await (await import('#lib/chains/chain-a/index.ts')).chainA()) as FaultyChainA;
}, 120_000);
afterAll(async () => {
  await rt?.stop();
  if (process.env.CHAOS_REPORT) console.log(`chaos: ${JSON.stringify(totals)}`);
});

/** The answers the docs give for these routes (the body's code for the errors). */
const DOCUMENTED: Record<number, string[] | undefined> = {
  200: undefined,
  202: undefined,
  409: ['WALLET_LOCKED', 'IDEMPOTENCY_IN_PROGRESS'],
  422: ['TRANSACTION_FAILED', 'INSUFFICIENT_BALANCE'],
  502: ['RPC_ERROR'],
  503: ['INDEXER_SYNC', 'SERVICE_UNAVAILABLE'],
};
const totals = { schedules: 0, requests: 0, faults: {} as Record<string, number>, ms: 0 };

const compressed = async () => BigInt(String(await chain.rpc.getCompressedBalanceByOwner(new PublicKey(wallet.address))));

type Move = { route: string; units: bigint; body: (amount: number) => object; sign: 1n | -1n };
const MOVES: Record<string, Move> = {
  'compress-native': { route: '/api/compression/compress-native', units: 1_000_000n, body: (a) => ({ walletId: wallet.id, amount: a }), sign: 1n },
  'decompress-native': { route: '/api/compression/decompress-native', units: 1_000_000n, body: (a) => ({ walletId: wallet.id, amount: a }), sign: -1n },
};

/** One request, or `crashed` once the fault layer swallowed it (a call that never returns). */
async function request(route: string, body: object, key: string): Promise<{ status: number; json: any } | 'crashed'> {
  const crashes = () => chain.injected['crash-before'] + chain.injected['crash-after'];
  const before = crashes();
  const abort = new AbortController();
  const res = fetch(new URL(route, rt.url), {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'idempotency-key': key, cookie: [...alice.jar].map(([k, v]) => `${k}=${v}`).join('; ') },
    body: JSON.stringify(body),
    signal: abort.signal,
  }).then(async (r) => ({ status: r.status, json: await r.json() }));
  for (;;) {
    const out = await Promise.race([res.catch(() => 'crashed' as const), new Promise<'tick'>((r) => setTimeout(() => r('tick'), 50))]);
    if (out !== 'tick') return out;
    if (crashes() > before) {
      abort.abort();
      return 'crashed';
    }
  }
}

const fault = fc.constantFrom<ChainAFault | 'none'>('none', ...FAULTS);
const schedule = fc.record({
  faults: fc.array(fault, { minLength: 1, maxLength: 3 }),
  readFault: fc.boolean(),
  concurrent: fc.integer({ min: 1, max: 3 }),
  milli: fc.integer({ min: 1, max: 9 }),
});

for (const [name, move] of Object.entries(MOVES)) {
  describe(`chaos: ${name}`, () => {
    it(`${RUNS} schedules of faults, crashes and retries keep every invariant`, async () => {
      const started = Date.now();
      await fc.assert(
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
          chain.advanceSlots(200);
          await resolveMovesOnce();
          answers.push(await request(move.route, move.body(amount), key));
          await resolveMovesOnce();

          const { getMove, listOpenMoves } = await import('#lib/data/value-moves.ts');
          const landed = chain.landedSignatures().filter((sig) => !landedBefore.has(sig));
          const moves = await Promise.all(landed.map((sig) => getMove(sig)));
          // every transaction that landed is in the journal, as landed
          for (const m of moves) expect(m?.status).toBe('landed');
          // nothing twice for one key; the chain moved exactly what the journal says landed
          expect(landed.length).toBeLessThanOrEqual(1);
          const units = BigInt(Math.round(amount * 1000)) * move.units;
          expect(await compressed()).toBe(before + move.sign * units * BigInt(landed.length));
          // nothing lost: an answer that says it landed (200) has its transaction on the chain
          for (const a of answers) if (a !== 'crashed' && a.status === 200) expect(landed).toContain(a.json.txHash);
          // every move settled
          expect(await listOpenMoves(new Date(clock.nowMs() + 86_400_000).toISOString())).toEqual([]);
          // every answer documented
          for (const a of answers) {
            if (a === 'crashed') continue;
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
}
