import type { VersionedTransaction } from '@solana/web3.js';
import { ChainRejected, type ChainA } from './port.ts';

/**
 * What the chain says of a transaction signed and recorded before it was sent: the one rule by
 * which value moves are settled (lib/moves/journal.ts, lib/transfer's payouts and deposits).
 */
export async function decodeSignedTransfer(bytes: string): Promise<VersionedTransaction> {
  // web3.js at first use: the journal (lib/moves/journal.ts) is in most functions' import graph.
  const { VersionedTransaction } = await import('@solana/web3.js');
  return VersionedTransaction.deserialize(Buffer.from(bytes, 'base64'));
}

export type Landing = { landed: true; slot: number } | { landed: false; failed: boolean };

/**
 * Whether the transaction with this signature is on the chain (and succeeded). Asked with
 * `searchTransactionHistory`: without it a node answers from its recent status cache only (about
 * 150 slots), and a transaction that landed minutes ago would look as if it never had.
 */
export async function landing(chain: ChainA, signature: string): Promise<Landing> {
  const { value } = await chain.rpc.getSignatureStatuses([signature], { searchTransactionHistory: true });
  const status = value[0];
  if (!status) return { landed: false, failed: false };
  if (status.err) return { landed: false, failed: true };
  return { landed: true, slot: status.slot };
}

/** What the chain says of a signed transaction: only these, never a timeout, decide a value move. */
export type Settlement = { kind: 'landed'; slot: number } | { kind: 'failed' } | { kind: 'expired' } | { kind: 'pending' };

/**
 * Asks the chain what became of a transaction signed and recorded before it was sent, and sends the
 * very same bytes again while it may still land (the chain takes one transaction once):
 *
 * - its status (history searched): landed, or failed (it moved nothing but its fee);
 * - no status and the block height past its `lastValidBlockHeight`: its blockhash expired, it can
 *   never land — but only if a history search, made after the height was read, still finds nothing;
 * - otherwise pending. A resend refused or timed out says nothing about the original: a node answers
 *   BlockhashNotFound for a transaction that landed long ago as for one that never did.
 *
 * A record from before heights were kept (`lastValidBlockHeight` undefined) is expired only when a
 * resend is refused with BlockhashNotFound and the history search then finds no status.
 */
export async function settle(chain: ChainA, t: { signature: string; bytes?: string; lastValidBlockHeight?: number }): Promise<Settlement> {
  const first = await landing(chain, t.signature);
  if (first.landed) return { kind: 'landed', slot: first.slot };
  if (first.failed) return { kind: 'failed' };
  if (t.lastValidBlockHeight !== undefined && (await chain.rpc.getBlockHeight()) > t.lastValidBlockHeight) {
    return afterExpiry(chain, t.signature);
  }
  if (!t.bytes) return { kind: 'pending' };
  try {
    return { kind: 'landed', slot: (await chain.sendAndConfirm(await decodeSignedTransfer(t.bytes))).slot };
  } catch (e) {
    if (isAlreadyProcessed(e)) {
      const again = await landing(chain, t.signature);
      return again.landed ? { kind: 'landed', slot: again.slot } : again.failed ? { kind: 'failed' } : { kind: 'pending' };
    }
    if (t.lastValidBlockHeight === undefined && isBlockhashRefusal(e)) return afterExpiry(chain, t.signature);
    return { kind: 'pending' };
  }
}

async function afterExpiry(chain: ChainA, signature: string): Promise<Settlement> {
  const seen = await landing(chain, signature);
  if (seen.landed) return { kind: 'landed', slot: seen.slot };
  return seen.failed ? { kind: 'failed' } : { kind: 'expired' };
}

/** A send refused for its blockhash: by itself this never means the transaction did not land (see settle). */
const isBlockhashRefusal = (e: unknown): boolean => e instanceof ChainRejected && /BlockhashNotFound|blockhash not found/i.test(e.message);

/** The chain has this very transaction already. */
export const isAlreadyProcessed = (e: unknown): boolean => e instanceof ChainRejected && /AlreadyProcessed|already been processed/i.test(e.message);
