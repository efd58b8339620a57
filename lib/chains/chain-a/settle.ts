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

export type Landing = ({ landed: true; slot: number } | { landed: false; failed: boolean }) & {
  /** The slot of the node's view that answered (its `context.slot`): a node behind the cluster answers from an older one. */
  seenAt: number;
};

/**
 * Whether the transaction with this signature is on the chain (and succeeded). Asked with
 * `searchTransactionHistory`: without it a node answers from its recent status cache only (about
 * 150 slots), and a transaction that landed minutes ago would look as if it never had.
 */
export async function landing(chain: ChainA, signature: string): Promise<Landing> {
  const { context, value } = await chain.rpc.getSignatureStatuses([signature], { searchTransactionHistory: true });
  const status = value[0];
  const seenAt = context?.slot ?? 0;
  if (!status) return { landed: false, failed: false, seenAt };
  if (status.err) return { landed: false, failed: true, seenAt };
  return { landed: true, slot: status.slot, seenAt };
}

/** What the chain says of a signed transaction: only these, never a timeout, decide a value move. */
export type Settlement = { kind: 'landed'; slot: number } | { kind: 'failed' } | { kind: 'expired' } | { kind: 'pending' };

/**
 * Asks the chain what became of a transaction signed and recorded before it was sent, and sends the
 * very same bytes again while it may still land (the chain takes one transaction once):
 *
 * - its status (history searched): landed, or failed (it moved nothing but its fee);
 * - no status and the block height past its `lastValidBlockHeight`: its blockhash expired, it can
 *   never land — but only if a history search made after the height was read, by a node that has
 *   itself reached the slot at which that height was read, still finds nothing. A node behind the
 *   cluster (one of several behind a provider's load balancer) has not seen the last blocks: its
 *   empty answer says nothing of them;
 * - otherwise pending. A resend refused or timed out says nothing about the original: a node answers
 *   BlockhashNotFound for a transaction that landed long ago as for one that never did, and a node
 *   behind the cluster for a blockhash it has not seen yet (while the cluster still takes it).
 *
 * A transaction recorded without its `lastValidBlockHeight` is never expired here: it stays
 * pending (the same bytes sent again) until its record has a height to go by (`heightBound`).
 */
export async function settle(chain: ChainA, t: { signature: string; bytes?: string; lastValidBlockHeight?: number }): Promise<Settlement> {
  const first = await landing(chain, t.signature);
  if (first.landed) return { kind: 'landed', slot: first.slot };
  if (first.failed) return { kind: 'failed' };
  if (t.lastValidBlockHeight !== undefined) {
    // Height and slot in one answer, from one node: the slot at which the block height was read
    // (a node too old to answer a height never expires anything).
    const { blockHeight, absoluteSlot } = await chain.rpc.getEpochInfo();
    if (blockHeight !== undefined && blockHeight > t.lastValidBlockHeight) return afterExpiry(chain, t.signature, absoluteSlot);
  }
  if (!t.bytes) return { kind: 'pending' };
  try {
    return { kind: 'landed', slot: (await chain.sendAndConfirm(await decodeSignedTransfer(t.bytes))).slot };
  } catch (e) {
    if (isAlreadyProcessed(e)) {
      const again = await landing(chain, t.signature);
      return again.landed ? { kind: 'landed', slot: again.slot } : again.failed ? { kind: 'failed' } : { kind: 'pending' };
    }
    return { kind: 'pending' };
  }
}

/** Blocks a blockhash stays valid on Solana after the block it was handed out at. */
export const BLOCKHASH_WINDOW = 150;

/**
 * A last valid block height for a transaction recorded without one (a record from before heights
 * were kept), to be stored in it once: its blockhash was handed out before now, so it can land at
 * most BLOCKHASH_WINDOW blocks past the cluster's height now; twice that covers a node answering
 * up to a window behind the cluster. Later than the real one, never earlier: it only waits longer.
 */
export const heightBound = async (chain: ChainA): Promise<number> => (await chain.rpc.getBlockHeight()) + 2 * BLOCKHASH_WINDOW;

/** Past its last valid height (read at slot `heightAt`): expired unless a node that has reached `heightAt` knows it. */
async function afterExpiry(chain: ChainA, signature: string, heightAt: number): Promise<Settlement> {
  const seen = await landing(chain, signature);
  if (seen.landed) return { kind: 'landed', slot: seen.slot };
  if (seen.failed) return { kind: 'failed' };
  return seen.seenAt >= heightAt ? { kind: 'expired' } : { kind: 'pending' };
}

/** The chain has this very transaction already. */
export const isAlreadyProcessed = (e: unknown): boolean => e instanceof ChainRejected && /AlreadyProcessed|already been processed/i.test(e.message);

/**
 * Refused for its blockhash: says nothing of the transaction. A node behind the cluster answers so
 * for a blockhash the cluster still takes, and any node for a transaction that landed long ago.
 */
export const isBlockhashNotFound = (e: unknown): boolean => e instanceof ChainRejected && /BlockhashNotFound|blockhash not found/i.test(e.message);
