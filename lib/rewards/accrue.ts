import { chainA } from '#lib/chains/chain-a/index.ts';
import { clock } from '#lib/clock.ts';
import { logger } from '#lib/log.ts';
import { accrualItems, clearOwed, clearOwedItem, listOwed, putOwed, putOwedItem, recordAccrual } from '#lib/data/rewards-ledger.ts';
import { getMove } from '#lib/data/value-moves.ts';
import { listWallets } from '#lib/data/wallets.ts';
import { accountOf, epochOf, pointsFor, SOURCES, type Source } from './rules.ts';

export interface AccrueInput {
  userId: string;
  source: Source;
  /** The source transaction's signature: it accrues once per source, whatever the retries. */
  txHash: string;
}

/**
 * What the user paid for the transaction (the rule counts nothing else): its fee, read from chain
 * A, when one of the user's chain A wallets is its fee payer; 0 when someone else paid. Throws
 * while the chain does not show the transaction (the outbox's retry job records it later).
 */
async function feePaid(userId: string, txHash: string, ownPayer?: string): Promise<bigint> {
  const chain = await chainA();
  const tx = await chain.rpc.getTransaction(txHash, { commitment: 'confirmed', maxSupportedTransactionVersion: 0 });
  if (!tx?.meta) throw new Error(`reward accrual: transaction ${txHash} not found on chain A`);
  if (tx.meta.err) return 0n;
  const payer = tx.transaction.message.staticAccountKeys[0]?.toBase58();
  const mine = (ownPayer !== undefined && payer === ownPayer) || (await listWallets(userId)).some((w) => w.chain === 'a' && w.address === payer);
  return mine ? BigInt(tx.meta.fee) : 0n;
}

/**
 * Points for one completed source transaction, into the current epoch (the next one if the
 * current one is already closing). Other groups call this once per confirmed transaction.
 * Returns whether this call recorded it (false: it had been recorded before).
 */
export async function accrue(input: AccrueInput, opts: AccrueOptions = {}): Promise<{ recorded: boolean; points: number; epoch: number }> {
  const fee = await feePaid(input.userId, input.txHash, opts.ownPayer);
  const points = pointsFor(fee);
  const at = clock.now().toISOString();
  // Nothing paid worth a point: nothing to record (no empty entries on the ledger or leaderboard).
  if (points === 0) {
    if (opts.clearOwed) await clearOwed(input.source, input.txHash);
    return { recorded: false, points, epoch: epochOf(clock.nowMs()) };
  }
  for (let epoch = epochOf(clock.nowMs()); ; epoch++) {
    const outcome = await recordAccrual(accrualOf(input, epoch, fee, at), opts.clearOwed);
    // Recorded before: its note (if any) was not cleared with it.
    if (outcome === 'duplicate' && opts.clearOwed) await clearOwed(input.source, input.txHash);
    if (outcome !== 'epoch-closed') return { recorded: outcome === 'recorded', points, epoch };
  }
}

const accrualOf = (input: AccrueInput, epoch: number, fee: bigint, at: string) => ({
  userId: input.userId,
  account: accountOf(input.userId),
  epoch,
  source: input.source,
  txHash: input.txHash,
  points: pointsFor(fee),
  basis: fee.toString(),
  at,
});

/**
 * The writes of `accrueNoted` (the accrual into the current epoch, the owed note cleared), for the
 * transaction that settles the source transaction as landed (lib/moves/journal.ts `alsoSettle`): one
 * round trip fewer on a signing request. When that transaction fails on them (the epoch closing, or
 * recorded before), the journal settles without them and the caller falls back to `accrueNoted`.
 */
export async function accrualSettleItems(input: AccrueInput, opts: Pick<AccrueOptions, 'ownPayer'> = {}): Promise<ReturnType<typeof accrualItems>> {
  const fee = await feePaid(input.userId, input.txHash, opts.ownPayer);
  const clear = clearOwedItem(input.source, input.txHash);
  if (pointsFor(fee) === 0) return [clear];
  return [...accrualItems(accrualOf(input, epochOf(clock.nowMs()), fee, clock.now().toISOString())), clear];
}

export interface AccrueOptions {
  /** A chain A address the caller knows is one of the user's wallets (the one that signed): no need to list them to see it paid. */
  ownPayer?: string;
  /** Clear the accrual's owed note in the write that records it. */
  clearOwed?: boolean;
}

const owedOf = (input: AccrueInput) => ({
  userId: input.userId,
  source: input.source,
  txHash: input.txHash,
  at: clock.now().toISOString(),
});

/**
 * Notes that a transaction about to be sent will owe an accrual once it is confirmed (callers that
 * sign before sending: the local swaps, the shielded deposits). A crash anywhere after the send
 * then loses nothing: the retry job asks the chain about the signature and records it if it
 * landed. `forgetOwed` when the chain refused it.
 */
export async function noteOwed(input: AccrueInput): Promise<void> {
  await putOwed(owedOf(input));
}

/** `noteOwed` as an item of the transaction that records the value move it is owed for (lib/moves/journal.ts `alsoRecord`). */
export const owedItem = (input: AccrueInput) => putOwedItem(owedOf(input));

/**
 * `accrueAfter` for an accrual noted as owed before its transaction was sent (`owedItem`): recorded
 * with the note cleared in the same write. A failure is logged, never thrown; the note stays for
 * the retry job, which records it later.
 */
export async function accrueNoted(input: AccrueInput, opts: Pick<AccrueOptions, 'ownPayer'> = {}): Promise<void> {
  try {
    await accrue(input, { ...opts, clearOwed: true });
  } catch (e) {
    leftOwed(input, e);
  }
}

/** An accrual noted as owed that could not be recorded now (`e`): its note stays, for the retry job. */
export function leftOwed(input: Pick<AccrueInput, 'source' | 'txHash'>, e: unknown): void {
  logger.warn('reward accrual failed; the retry job records it', {
    source: input.source,
    txHash: input.txHash,
    error: e instanceof Error ? e.message : String(e),
  });
}

export const forgetOwed = (input: Pick<AccrueInput, 'source' | 'txHash'>): Promise<void> => clearOwed(input.source, input.txHash);

/**
 * `accrue` for callers whose own operation is already done and must not fail because of it: the
 * accrual is first noted as owed (the outbox), then recorded, then the note cleared. A failure is
 * logged, never thrown, and the note stays for the retry job (`retryAccrualsOnce`), which records
 * it later; the conditional write keyed by the source transaction makes that exactly once.
 */
export async function accrueAfter(input: AccrueInput): Promise<void> {
  const fields = { source: input.source, txHash: input.txHash };
  try {
    await putOwed(owedOf(input));
  } catch (e) {
    logger.error('reward accrual could not be noted as owed; recording it now', { ...fields, error: e instanceof Error ? e.message : String(e) });
  }
  try {
    await accrue(input);
    await clearOwed(input.source, input.txHash);
  } catch (e) {
    logger.warn('reward accrual failed; the retry job records it', { ...fields, error: e instanceof Error ? e.message : String(e) });
  }
}

/** Owed accruals younger than this are left to the request still making them. */
export const ACCRUAL_RETRY_AFTER_MS = 30_000;
/** A note whose transaction the journal never recorded (so never sent) is dropped once this old (its request long gone). */
export const OWED_UNSEEN_DROP_MS = 10 * 60_000;
/** The local runtime's and the schedule's pace. */
export const ACCRUAL_RETRY_INTERVAL_MS = 60_000;

export interface AccrualRetryReport {
  seen: number;
  recorded: number;
  duplicates: number;
  /** Not (yet) on the chain: kept, or dropped once older than OWED_UNSEEN_DROP_MS. */
  unseen: number;
  /** Failed on chain, or never landed: dropped without points. */
  dropped: number;
  failures: number;
}

const isSource = (s: string): s is Source => SOURCES.some((r) => r.source === s);

/**
 * A noted transaction with no status on chain A can never land: only the journal's settlement of it
 * decides (lib/moves/journal.ts: failed, or expired past its last valid block height), never the
 * note's age — it lands as long as its blockhash lives, counted in blocks, and a slow or halted
 * cluster stretches that past any wall time (an open or landed move keeps its note: a node behind
 * the cluster answers no status for what landed). A note with no move: its request died before the
 * journal recorded the transaction (recorded before it is sent, so never sent), once it is older
 * than OWED_UNSEEN_DROP_MS (the request long gone).
 */
async function neverLands(owed: { txHash: string; at: string }): Promise<boolean> {
  const move = await getMove(owed.txHash);
  if (move) return move.status === 'failed' || move.status === 'expired';
  return clock.nowMs() - Date.parse(owed.at) > OWED_UNSEEN_DROP_MS;
}

/** One pass of the retry job: records every accrual still owed (functions/scheduled/rewards-retry.ts). */
export async function retryAccrualsOnce(): Promise<AccrualRetryReport> {
  const report: AccrualRetryReport = { seen: 0, recorded: 0, duplicates: 0, unseen: 0, dropped: 0, failures: 0 };
  const owedList = await listOwed(new Date(clock.nowMs() - ACCRUAL_RETRY_AFTER_MS).toISOString());
  const chain = owedList.length ? await chainA() : undefined;
  for (const owed of owedList) {
    report.seen++;
    if (!isSource(owed.source)) {
      report.failures++;
      logger.error('owed reward accrual with an unknown source; left in place', { source: owed.source, txHash: owed.txHash });
      continue;
    }
    try {
      // Only a confirmed transaction earns points (a note may have been written before the send).
      const { value } = await chain!.rpc.getSignatureStatuses([owed.txHash], { searchTransactionHistory: true });
      const status = value[0];
      if (!status || status.err) {
        if (status?.err || (await neverLands(owed))) {
          await clearOwed(owed.source, owed.txHash);
          report.dropped++;
        } else report.unseen++;
        continue;
      }
      const done = await accrue({ userId: owed.userId, source: owed.source, txHash: owed.txHash });
      await clearOwed(owed.source, owed.txHash);
      if (done.recorded) report.recorded++;
      else report.duplicates++;
    } catch (e) {
      report.failures++;
      logger.warn('owed reward accrual not recorded; next pass', {
        source: owed.source,
        txHash: owed.txHash,
        error: e instanceof Error ? e.message : String(e),
      });
    }
  }
  return report;
}
