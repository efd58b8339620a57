import { buildAndSignTx } from '@lightprotocol/stateless.js';
import { createAssociatedTokenAccountIdempotentInstruction, createTransferCheckedInstruction, getAssociatedTokenAddressSync } from '@solana/spl-token';
import { SystemProgram, VersionedTransaction, type Keypair, type PublicKey } from '@solana/web3.js';
import bs58 from 'bs58';
import { ChainRejected, type ChainA } from '#lib/chains/chain-a/index.ts';

/**
 * The chain A transactions of the shielded pools: plain transfers of the native coin or of an SPL
 * token (wallet → pool on deposit, pool → recipient on withdrawal), built and signed before they are sent so that their
 * signature can be recorded first and asked about after a crash or a timeout.
 */
export interface SignedTransfer {
  tx: VersionedTransaction;
  /** The first signature, base58: the transaction's id. */
  signature: string;
  /** The signed bytes, base64, to send again unchanged. */
  bytes: string;
  /** The block height after which its blockhash has expired: past it (and with no status) it can never land. */
  lastValidBlockHeight: number;
}

/** What moves: the native coin, or an SPL token (between the owners' associated token accounts). */
export type Asset = { mint?: undefined } | { mint: PublicKey; decimals: number };

/**
 * A transfer of `units` of `asset` from `from` (who also pays the fee, and the rent of the
 * recipient's token account when it has none) to `to`, signed against a recent blockhash.
 */
export async function signedTransfer(chain: ChainA, from: Keypair, to: PublicKey, units: bigint, asset: Asset = {}): Promise<SignedTransfer> {
  const { blockhash, lastValidBlockHeight } = await chain.rpc.getLatestBlockhash();
  const ixs = asset.mint
    ? [
        createAssociatedTokenAccountIdempotentInstruction(from.publicKey, getAssociatedTokenAddressSync(asset.mint, to, true), to, asset.mint),
        createTransferCheckedInstruction(
          getAssociatedTokenAddressSync(asset.mint, from.publicKey, true),
          asset.mint,
          getAssociatedTokenAddressSync(asset.mint, to, true),
          from.publicKey,
          units,
          asset.decimals,
        ),
      ]
    : [SystemProgram.transfer({ fromPubkey: from.publicKey, toPubkey: to, lamports: units })];
  const tx = buildAndSignTx(ixs, from, blockhash);
  return { tx, signature: bs58.encode(tx.signatures[0]!), bytes: Buffer.from(tx.serialize()).toString('base64'), lastValidBlockHeight };
}

export const decodeSignedTransfer = (bytes: string): VersionedTransaction => VersionedTransaction.deserialize(Buffer.from(bytes, 'base64'));

/** The fee of a one-signature transaction (lamports). */
export const SIGNATURE_FEE = 5_000n;

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
    return { kind: 'landed', slot: (await chain.sendAndConfirm(decodeSignedTransfer(t.bytes))).slot };
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
