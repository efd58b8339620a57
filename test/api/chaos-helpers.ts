import { appendFileSync } from 'node:fs';
import fc from 'fast-check';
import { expect } from 'vitest';
import { FAULTS, type ChainAFault, type FaultyChainA } from '#lib/chains/chain-a/faults.ts';
import { advanceClock, clock } from '#lib/clock.ts';
import type { HttpClient, TestRuntime } from '../support/runtime.ts';

/** What the chaos properties share (chaos.test.ts, chaos-moves.test.ts, chaos-chain-b.test.ts): schedules, one request that may crash, the documented answers, the per-move report. */
export const RUNS = Number(process.env.CHAOS_RUNS ?? 8);
// 53: its first eight schedules send under in-flight (a node behind the cluster refusing the resend after it), dropped, lands-later, both crashes, timeouts.
export const SEED = Number(process.env.CHAOS_SEED ?? 53);
// A property's time limit grows with its schedules: a shielded payout's schedule proves a withdrawal and took 7 s at load 40, so a fixed hour failed a 1,000-schedule run that was passing.
export const PROPERTY_TIMEOUT = Math.max(3_600_000, RUNS * 30_000);

export type Answer = { status: number; json: any } | 'crashed';

/** A fault layer that counts its crashes (either chain's: lib/chains/chain-a/faults.ts, lib/chains/chain-b/faults.ts). */
type Crashing = { readonly crashed: number };

/** One request, or `crashed` once the fault layer swallowed it (a call that never returns). */
export async function request(rt: TestRuntime, client: HttpClient, chain: Crashing, route: string, body: object, key: string): Promise<Answer> {
  // A crash counts once its send reached the crash point (after the chain took it, for crash-after), not when the fault was drawn.
  const crashes = () => chain.crashed;
  const before = crashes();
  const abort = new AbortController();
  const res = fetch(new URL(route, rt.url), {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'idempotency-key': key, cookie: [...client.jar].map(([k, v]) => `${k}=${v}`).join('; ') },
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

/**
 * A job's pass run in this process (the relayer, the retry job), or `crashed` once the fault layer
 * swallowed one of its calls. A crash seen while passes run side by side may be another's: this one
 * is given half a second more to finish (a pass on the local chains takes milliseconds).
 */
export async function crashable<T>(chain: Crashing, run: () => Promise<T>): Promise<T | 'crashed'> {
  const crashes = () => chain.crashed;
  const before = crashes();
  const out = run();
  const tick = (ms: number) => new Promise<'tick'>((r) => setTimeout(() => r('tick'), ms));
  for (;;) {
    const done = await Promise.race([out, tick(50)]);
    if (done !== 'tick') return done;
    if (crashes() > before) {
      const late = await Promise.race([out, tick(500)]);
      return late === 'tick' ? 'crashed' : late;
    }
  }
}

/** The answers the docs give these routes (the body's code for the errors); `extra`: a route's own. */
export function expectDocumented(answers: Answer[], extra: Record<number, string[]> = {}): void {
  const documented: Record<number, string[] | undefined> = {
    200: undefined,
    202: undefined,
    409: ['WALLET_LOCKED', 'IDEMPOTENCY_IN_PROGRESS', ...(extra[409] ?? [])],
    422: ['TRANSACTION_FAILED', 'INSUFFICIENT_BALANCE', ...(extra[422] ?? [])],
    502: ['RPC_ERROR'],
    503: ['INDEXER_SYNC', 'SERVICE_UNAVAILABLE', ...(extra[503] ?? [])],
  };
  for (const [status, codes] of Object.entries(extra)) if (!(Number(status) in documented)) documented[Number(status)] = codes;
  for (const a of answers) {
    if (a === 'crashed') continue;
    expect(Object.keys(documented), JSON.stringify(a.json)).toContain(String(a.status));
    const codes = documented[a.status];
    if (codes) expect(codes, JSON.stringify(a.json)).toContain(a.json.error);
  }
}

const fault = fc.constantFrom<ChainAFault | 'none'>('none', ...FAULTS);
export const scheduleFields = {
  faults: fc.array(fault, { minLength: 1, maxLength: 3 }),
  // One schedule in four: a read fault refuses the request before it sends, leaving its send faults unused.
  readFault: fc.integer({ min: 0, max: 3 }).map((n) => n === 0),
  concurrent: fc.integer({ min: 1, max: 3 }),
  milli: fc.integer({ min: 1, max: 9 }),
};
export const schedule = fc.record(scheduleFields);
export type Schedule = typeof schedule extends fc.Arbitrary<infer S> ? S : never;

/** Per move: schedules run, requests made, faults injected, milliseconds; printed by `npm run chaos` (CHAOS_REPORT). */
export type Report = Record<string, { schedules: number; requests: number; faults: Record<string, number>; ms: number }>;

export function reportFor(report: Report, name: string) {
  return (report[name] ??= { schedules: 0, requests: 0, faults: {}, ms: 0 });
}

/**
 * One schedule done: counted; with CHAOS_REPORT a line every hundred schedules (the faults come with
 * the end's report), and with CHAOS_PROGRESS (a file) a line for each, so a long run shows how far it got.
 */
export function scheduleDone(report: Report, name: string, requests: number): void {
  const r = reportFor(report, name);
  r.schedules++;
  r.requests += requests;
  if (process.env.CHAOS_REPORT && r.schedules % 100 === 0) console.log(`chaos ${name}: ${r.schedules} schedules, ${r.requests} requests so far`);
  if (process.env.CHAOS_PROGRESS)
    appendFileSync(process.env.CHAOS_PROGRESS, `${new Date().toISOString()} ${name}: ${r.schedules} schedules, ${r.requests} requests\n`);
}

/** The faults injected while `run` ran, added to the move's report (a fault layer of either chain: its `injected` counts). */
export async function measured(
  report: Report,
  name: string,
  chain: { readonly injected: Readonly<Record<string, number>> },
  run: () => Promise<void>,
): Promise<void> {
  const r = reportFor(report, name);
  const before = { ...chain.injected };
  const started = Date.now();
  try {
    await run();
  } finally {
    r.ms += Date.now() - started;
    for (const [f, n] of Object.entries(chain.injected)) {
      const d = n - (before[f] ?? 0);
      if (d) r.faults[f] = (r.faults[f] ?? 0) + d;
    }
  }
}

export function printReport(report: Report): void {
  if (!process.env.CHAOS_REPORT) return;
  for (const [name, r] of Object.entries(report)) {
    const faults = Object.values(r.faults).reduce((a, b) => a + b, 0);
    console.log(
      `chaos ${name}: ${r.schedules} schedules, ${r.requests} requests, ${faults} faults injected ${JSON.stringify(r.faults)}, ${(r.ms / 1000).toFixed(1)} s`,
    );
  }
}

/**
 * Chain A's transactions that landed since `before`: at most one for the key (should two land, the
 * message names each one's journaled purpose), and every one journaled as landed.
 */
export async function landedOnceJournaled(chain: FaultyChainA, before: Set<string>, answers: Answer[]): Promise<string[]> {
  const { getMove } = await import('#lib/data/value-moves.ts');
  await chain.applied();
  const landed = chain.landedSignatures().filter((sig) => !before.has(sig));
  const moves = await Promise.all(landed.map(async (sig) => ({ sig, move: await getMove(sig) })));
  expect(landed.length, JSON.stringify({ answers, moves })).toBeLessThanOrEqual(1);
  for (const { move } of moves) expect(move?.status).toBe('landed');
  return landed;
}

/**
 * A compression's reward points: once the accrual outbox's pass has run, every transaction that
 * landed has exactly one ledger entry and nothing owed for it (recorded with its settlement, by the
 * request after it, or by the pass), and each epoch's total is the sum of its entries.
 */
export async function expectAccruedOnce(userId: string, landed: string[]): Promise<void> {
  const { ACCRUAL_RETRY_AFTER_MS, retryAccrualsOnce } = await import('#lib/rewards/accrue.ts');
  const { epochAccount, ledger, listOwed } = await import('#lib/data/rewards-ledger.ts');
  const { accountOf } = await import('#lib/rewards/rules.ts');
  advanceClock(ACCRUAL_RETRY_AFTER_MS + 1000);
  await retryAccrualsOnce();
  const entries = await ledger(userId);
  for (const tx of landed) expect(entries.filter((e) => e.txHash === tx).length, tx).toBe(1);
  // and the epochs' totals are the sums of the entries: no points added without their entry
  for (const epoch of new Set(entries.map((e) => e.epoch))) {
    const sum = entries.filter((e) => e.epoch === epoch).reduce((n, e) => n + e.points, 0);
    expect((await epochAccount(epoch, accountOf(userId)))?.points, `epoch ${epoch}`).toBe(sum);
  }
  const owed = await listOwed(new Date(clock.nowMs() + 86_400_000).toISOString());
  expect(owed.filter((o) => landed.includes(o.txHash))).toEqual([]);
}

/** Nothing left open in chain A's journal, however old. */
export async function expectJournalSettled(): Promise<void> {
  const { listOpenMoves } = await import('#lib/data/value-moves.ts');
  expect(await listOpenMoves(new Date(clock.nowMs() + 86_400_000).toISOString())).toEqual([]);
}
