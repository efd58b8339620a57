import { chainA } from '#lib/chains/chain-a/index.ts';
import { clock } from '#lib/clock.ts';
import { logger } from '#lib/log.ts';
import { clearOwed, listOwed, putOwed, recordAccrual, type Accrual } from '#lib/data/rewards-ledger.ts';
import { accountOf, epochOf, pointsFor, SOURCES, type Source } from './rules.ts';

export interface AccrueInput {
  userId: string;
  source: Source;
  /** The source transaction's signature: it accrues once per source, whatever the retries. */
  txHash: string;
  /** The native-coin amount the rule counts (smallest units); none for per-transaction rules. */
  lamports?: bigint;
}

/**
 * Points for one completed source transaction, into the current epoch (the next one if the
 * current one is already closing). Other groups call this once per confirmed transaction.
 * Returns whether this call recorded it (false: it had been recorded before).
 */
export async function accrue(input: AccrueInput): Promise<{ recorded: boolean; points: number; epoch: number }> {
  const first = accrualOf(input);
  for (let epoch = first.epoch; ; epoch++) {
    const outcome = await recordAccrual({ ...first, epoch });
    if (outcome !== 'epoch-closed') return { recorded: outcome === 'recorded', points: first.points, epoch };
  }
}

/** The accrual of `input` in the current epoch, as recordAccrual writes it. */
export function accrualOf(input: AccrueInput): Accrual {
  return {
    userId: input.userId,
    account: accountOf(input.userId),
    epoch: epochOf(clock.nowMs()),
    source: input.source,
    txHash: input.txHash,
    points: pointsFor(input.lamports),
    basis: input.lamports !== undefined ? input.lamports.toString() : 'transaction',
    at: clock.now().toISOString(),
  };
}

const owedOf = (input: AccrueInput) => ({
  userId: input.userId,
  source: input.source,
  txHash: input.txHash,
  ...(input.lamports !== undefined ? { lamports: input.lamports.toString() } : {}),
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
/** A noted transaction the chain has not seen after this long never will (its blockhash expired long before). */
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
        const old = clock.nowMs() - Date.parse(owed.at) > OWED_UNSEEN_DROP_MS;
        if (status?.err || old) {
          await clearOwed(owed.source, owed.txHash);
          report.dropped++;
        } else report.unseen++;
        continue;
      }
      const done = await accrue({ userId: owed.userId, source: owed.source, txHash: owed.txHash, ...(owed.lamports !== undefined ? { lamports: BigInt(owed.lamports) } : {}) });
      await clearOwed(owed.source, owed.txHash);
      if (done.recorded) report.recorded++;
      else report.duplicates++;
    } catch (e) {
      report.failures++;
      logger.warn('owed reward accrual not recorded; next pass', { source: owed.source, txHash: owed.txHash, error: e instanceof Error ? e.message : String(e) });
    }
  }
  return report;
}
