import { randomUUID } from 'node:crypto';
import { acquireWalletLease, releaseWalletLease, releaseWalletLeaseRecordingSlot, type WalletRecord } from '#lib/data/wallets.ts';
import { errors } from '#lib/errors.ts';
import { walletConfig } from './config.ts';

/**
 * Runs `fn` holding the wallet's signing lease: taken before a transaction is built, released
 * after it is confirmed (or failed), together with the slot the transaction landed in. Another
 * holder → 409 WALLET_LOCKED at once, never a wait: two Lambda instances never sign for one
 * wallet at the same time. The lease expires by itself after WALLET_LOCK_SECONDS if its holder dies.
 */
export async function withWalletLock<T extends { slot: number }>(w: WalletRecord, fn: () => Promise<T>): Promise<T> {
  const owner = randomUUID();
  if (!(await acquireWalletLease(w.id, owner, walletConfig.WALLET_LOCK_SECONDS))) {
    throw errors.walletLocked('another request is using this wallet; retry when it has finished');
  }
  let result: T | undefined;
  try {
    result = await fn();
    return result;
  } finally {
    if (result) await releaseWalletLeaseRecordingSlot(w, owner, result.slot);
    else await releaseWalletLease(w.id, owner);
  }
}
