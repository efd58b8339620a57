import { chainA } from '#lib/chains/chain-a/index.ts';
import { clock } from '#lib/clock.ts';
import * as deposits from '#lib/data/shielded-pools.ts';
import { getMove } from '#lib/data/value-moves.ts';
import { listOpenJobs } from '#lib/data/shielded-withdrawals.ts';
import { logger } from '#lib/log.ts';
import { resolveChainBMovesOnce } from '#lib/moves/chain-b.ts';
import { resolveMovesOnce, type MovesReport } from '#lib/moves/journal.ts';
import { forgetOwed } from '#lib/rewards/accrue.ts';
import { heightBound } from '#lib/chains/chain-a/settle.ts';
import { settle } from './chain.ts';
import { transferConfig } from './config.ts';
import { payJob } from './payouts.ts';
import { appendToTree } from './tree.ts';

/**
 * The transfer retry job: every minute (AWS: an EventBridge rule → functions/scheduled/transfer-retry.ts;
 * locally: a timer in the local runtime), and callable once (tests). It finishes what a failed or
 * crashed request left: unpaid withdrawals (payouts.ts decides, exactly once), deposits whose
 * transfer was sent but whose commitment is not in the tree yet, and the value moves the chain has
 * not settled (lib/moves/journal.ts: compression, mint-to, create-token, reward claims, deposits,
 * swaps, sweeps, the service's bridge deposits; and chain B's, lib/moves/chain-b.ts: wallet
 * transfers and bridge withdrawals; docs/value-moves.md). Work younger than
 * TRANSFER_RETRY_AFTER_SECONDS is left to the request still handling it.
 */
export const RETRY_INTERVAL_MS = 60_000;

export interface RetryReport {
  jobsSeen: number;
  jobsPaid: number;
  depositsSeen: number;
  depositsAppended: number;
  depositsDropped: number;
  failures: number;
  /** The value-move journal's pass (lib/moves/journal.ts). */
  moves?: MovesReport;
  /** The same for chain B's moves (lib/moves/chain-b.ts). */
  chainBMoves?: MovesReport;
}

export async function retryTransfersOnce(): Promise<RetryReport> {
  const report: RetryReport = { jobsSeen: 0, jobsPaid: 0, depositsSeen: 0, depositsAppended: 0, depositsDropped: 0, failures: 0 };
  // What a request may still be handling (recorded less than this ago) is left to it: the pass would
  // send the same bytes beside the request's own send, and a node behind refusing the request's
  // (BlockhashNotFound: "nothing moved") would settle failed a transaction the pass had landed.
  const liveMs = transferConfig.TRANSFER_RETRY_AFTER_SECONDS * 1000;
  const before = new Date(clock.nowMs() - liveMs).toISOString();
  for (const open of await listOpenJobs(before)) {
    report.jobsSeen++;
    const job = await payJob(open.id).catch(() => undefined);
    if (job?.status === 'paid') report.jobsPaid++;
    else report.failures++;
  }
  for (const d of await deposits.listOpenDeposits(before)) {
    report.depositsSeen++;
    try {
      const outcome = await finishDeposit(d);
      if (outcome === 'appended') report.depositsAppended++;
      else if (outcome === 'dropped') report.depositsDropped++;
    } catch (e) {
      report.failures++;
      logger.warn('deposit not finished; next pass', { depositId: d.id, error: e as Error });
    }
  }
  try {
    report.moves = await resolveMovesOnce(liveMs);
  } catch (e) {
    report.failures++;
    logger.warn('value moves not settled; next pass', { error: e as Error });
  }
  try {
    report.chainBMoves = await resolveChainBMovesOnce(liveMs);
  } catch (e) {
    report.failures++;
    logger.warn('chain B value moves not settled; next pass', { error: e as Error });
  }
  return report;
}

/** Its transfer never landed: the reservation goes, and so do the points noted as owed before the send. */
async function dropDeposit(d: deposits.DepositRecord): Promise<void> {
  await deposits.dropPendingDeposit(d);
  await forgetOwed({ source: 'shielded-deposit', txHash: d.txHash });
}

/** A pending deposit's transfer, as the chain settles it (chain.ts): landed → append; failed or expired → drop the reservation; else wait. */
async function finishDeposit(open: deposits.DepositRecord): Promise<'appended' | 'dropped' | 'skipped'> {
  const d = await deposits.getDeposit(open.userId, open.id); // the index may lag
  if (!d || d.status === 'complete') return 'skipped';
  if (d.status === 'pending') {
    const chain = await chainA();
    // A deposit sent inside another move (a swap's shielded output) has its bytes and height in
    // that move's journal record, not its own.
    const move = d.lastValidBlockHeight === undefined ? await getMove(d.txHash) : undefined;
    const journaled = move?.chain === 'a' ? move : undefined;
    let lastValidBlockHeight = d.lastValidBlockHeight ?? journaled?.lastValidBlockHeight;
    // A deposit recorded before heights were kept gets a bound first (never earlier than its real one).
    if (lastValidBlockHeight === undefined) {
      lastValidBlockHeight = await heightBound(chain);
      await deposits.stampDepositHeight(d, lastValidBlockHeight);
      return 'skipped';
    }
    const seen = await settle(chain, { signature: d.txHash, bytes: d.signedTx ?? journaled?.signedTx, lastValidBlockHeight });
    if (seen.kind === 'pending') return 'skipped';
    if (seen.kind !== 'landed') {
      // failed, or expired past its last valid block height with no status in the history: nothing moved
      await dropDeposit(d);
      return 'dropped';
    }
    await deposits.markDepositTransferred(d);
  }
  await appendToTree({ ...d, status: 'transferred' });
  return 'appended';
}
