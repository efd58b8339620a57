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
}

/** What moves: the native coin, or an SPL token (between the owners' associated token accounts). */
export type Asset = { mint?: undefined } | { mint: PublicKey; decimals: number };

/**
 * A transfer of `units` of `asset` from `from` (who also pays the fee, and the rent of the
 * recipient's token account when it has none) to `to`, signed against a recent blockhash.
 */
export async function signedTransfer(chain: ChainA, from: Keypair, to: PublicKey, units: bigint, asset: Asset = {}): Promise<SignedTransfer> {
  const { blockhash } = await chain.rpc.getLatestBlockhash();
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
  return { tx, signature: bs58.encode(tx.signatures[0]!), bytes: Buffer.from(tx.serialize()).toString('base64') };
}

export const decodeSignedTransfer = (bytes: string): VersionedTransaction => VersionedTransaction.deserialize(Buffer.from(bytes, 'base64'));

/** The fee of a one-signature transaction (lamports). */
export const SIGNATURE_FEE = 5_000n;

export type Landing = { landed: true; slot: number } | { landed: false; failed: boolean };

/** Whether the transaction with this signature is on the chain (and succeeded). */
export async function landing(chain: ChainA, signature: string): Promise<Landing> {
  const { value } = await chain.rpc.getSignatureStatuses([signature]);
  const status = value[0];
  if (!status) return { landed: false, failed: false };
  if (status.err) return { landed: false, failed: true };
  return { landed: true, slot: status.slot };
}

/** The chain will never take this transaction (its blockhash is too old): safe to sign a new one. */
export const isExpired = (e: unknown): boolean => e instanceof ChainRejected && /BlockhashNotFound|blockhash not found/i.test(e.message);

/** The chain has this very transaction already. */
export const isAlreadyProcessed = (e: unknown): boolean => e instanceof ChainRejected && /AlreadyProcessed|already been processed/i.test(e.message);
