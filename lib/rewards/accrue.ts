import { clock } from '#lib/clock.ts';
import { logger } from '#lib/log.ts';
import { recordAccrual } from '#lib/data/rewards-ledger.ts';
import { accountOf, epochOf, pointsFor, type Source } from './rules.ts';

export interface AccrueInput {
  userId: string;
  source: Source;
  /** The source transaction's signature: it accrues once, whatever the retries. */
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
  const points = pointsFor(input.lamports);
  const at = clock.now().toISOString();
  for (let epoch = epochOf(clock.nowMs()); ; epoch++) {
    const outcome = await recordAccrual({
      userId: input.userId,
      account: accountOf(input.userId),
      epoch,
      source: input.source,
      txHash: input.txHash,
      points,
      basis: input.lamports !== undefined ? input.lamports.toString() : 'transaction',
      at,
    });
    if (outcome !== 'epoch-closed') return { recorded: outcome === 'recorded', points, epoch };
  }
}

/** `accrue` for callers whose own operation is already done: a failure is logged, never thrown. */
export async function accrueAfter(input: AccrueInput): Promise<void> {
  try {
    await accrue(input);
  } catch (e) {
    logger.error('reward accrual failed', { source: input.source, txHash: input.txHash, error: e instanceof Error ? e.message : String(e) });
  }
}
