import { randomUUID } from 'node:crypto';
import {
  acquireWalletLease,
  endWalletLeaseHold,
  releaseWalletLease,
  releaseWalletLeaseRecordingSlot,
  walletLeaseHeldFor,
  type WalletLease,
  type WalletRecord,
} from '#lib/data/wallets.ts';
import { errors } from '#lib/errors.ts';
import { logger } from '#lib/log.ts';
import { MoveUnsettled } from '#lib/moves/unsettled.ts';
import { walletConfig } from './config.ts';

/**
 * Runs `fn` holding the wallet's signing lease: taken before a transaction is built, released
 * after it is confirmed (or failed), together with the slot the transaction landed in. Another
 * holder → 409 WALLET_LOCKED at once, never a wait: two Lambda instances never sign for one
 * wallet at the same time. The lease expires by itself after WALLET_LOCK_SECONDS if its holder dies.
 *
 * A value move the chain has not settled holds the lease past its request (lib/moves/journal.ts,
 * from before its send): the next request asks the chain about that transaction first, and takes
 * the lease only once it has settled; until then 409 WALLET_LOCKED names it. `fn` gets the
 * request's lease `owner`, for the journal to bind, and the lease as the journal takes it.
 */
export async function withWalletLock<T extends { slot: number }>(w: WalletRecord, fn: (owner: string, lease: WalletLease) => Promise<T>): Promise<T> {
  const owner = randomUUID();
  await takeLease(w, owner);
  const lease: WalletLease = { walletId: w.id, owner, seconds: walletConfig.WALLET_LOCK_SECONDS, userId: w.userId };
  let result: T;
  try {
    result = await fn(owner, lease);
  } catch (e) {
    // Held for an unsettled move, the lease is no longer `owner`'s: the release then changes nothing,
    // and its failure must not replace the 202 (an error would free the Idempotency-Key bound to a
    // transaction that may land, and a retry would send a second one once it had).
    if (e instanceof MoveUnsettled) {
      await releaseWalletLease(w.id, owner).catch((err: unknown) =>
        logger.warn('wallet lease not released after an unsettled send; it is held for the move', { walletId: w.id, error: err as Error }),
      );
    } else await releaseWalletLease(w.id, owner);
    throw e;
  }
  // Ended by the journal with its move's settlement (the slot recorded with it): nothing left to do.
  // After a send that landed a failed release must not become the request's error: the lease lapses
  // by itself after WALLET_LOCK_SECONDS, and an error would free the Idempotency-Key of a
  // transaction that moved value.
  if (!lease.released) {
    await releaseWalletLeaseRecordingSlot(w, owner, result.slot).catch((e: unknown) =>
      logger.warn('wallet lease not released after a landed send; it lapses by itself', { walletId: w.id, error: e as Error }),
    );
  }
  return result;
}

async function takeLease(w: WalletRecord, owner: string): Promise<void> {
  if (await acquireWalletLease(w.id, owner, walletConfig.WALLET_LOCK_SECONDS)) return;
  const pending = await walletLeaseHeldFor(w.id);
  if (pending) {
    const { resolveMove } = await import('#lib/moves/journal.ts');
    const outcome = await resolveMove(pending).catch(() => 'pending' as const);
    if (outcome === 'pending') {
      throw errors.walletLocked(
        `transaction ${pending} from this wallet was sent and the chain has not settled it yet; the wallet signs again once it has landed or expired`,
      );
    }
    // Settled (its hold ends with it, and is ended here should one have outlived it), or not a chain A
    // move of the journal (a chain B hold is settled by its own check).
    await endWalletLeaseHold(w.id, pending).catch(() => undefined);
    if (await acquireWalletLease(w.id, owner, walletConfig.WALLET_LOCK_SECONDS)) return;
  }
  throw errors.walletLocked('another request is using this wallet; retry when it has finished');
}
