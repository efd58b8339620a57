import { randomUUID } from 'node:crypto';
import { accrualItems } from '#lib/data/rewards-ledger.ts';
import { acquireWalletLease, releaseWalletLease, releaseWalletLeaseRecordingSlot, releaseWalletLeaseWith, type WalletRecord } from '#lib/data/wallets.ts';
import { errors } from '#lib/errors.ts';
import { accrualOf, accrueAfter, type AccrueInput } from '#lib/rewards/accrue.ts';
import { walletConfig } from './config.ts';

/**
 * Runs `fn` holding the wallet's signing lease: taken before a transaction is built, released
 * after it is confirmed (or failed), together with the slot the transaction landed in. Another
 * holder → 409 WALLET_LOCKED at once, never a wait: two Lambda instances never sign for one
 * wallet at the same time. The lease expires by itself after WALLET_LOCK_SECONDS if its holder dies.
 * `accrual`: the reward the confirmed transaction earns, recorded in the release's own transaction.
 */
export async function withWalletLock<T extends { slot: number }>(w: WalletRecord, fn: () => Promise<T>, accrual?: (result: T) => AccrueInput): Promise<T> {
  const owner = randomUUID();
  if (!(await acquireWalletLease(w.id, owner, walletConfig.WALLET_LOCK_SECONDS))) {
    throw errors.walletLocked('another request is using this wallet; retry when it has finished');
  }
  let result: T | undefined;
  try {
    result = await fn();
    return result;
  } finally {
    if (result) await release(w, owner, result.slot, accrual?.(result));
    else await releaseWalletLease(w.id, owner);
  }
}

/**
 * The release, the slot and the transaction's accrual in one DynamoDB transaction (the hot path's
 * one round trip after the chain). When a condition fails (the lease lost, the epoch closing, the
 * accrual there already) nothing was written, and the usual path runs: the release on its own,
 * then accrueAfter with its owed note, its next-epoch retry and its retry job.
 */
async function release(w: WalletRecord, owner: string, slot: number, accrual: AccrueInput | undefined) {
  if (accrual && (await releaseWalletLeaseWith(w, owner, slot, accrualItems(accrualOf(accrual))))) return;
  await releaseWalletLeaseRecordingSlot(w, owner, slot);
  if (accrual) await accrueAfter(accrual);
}
