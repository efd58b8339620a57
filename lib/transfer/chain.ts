import { buildAndSignTx } from '@lightprotocol/stateless.js';
import { createAssociatedTokenAccountIdempotentInstruction, createTransferCheckedInstruction, getAssociatedTokenAddressSync } from '@solana/spl-token';
import { PublicKey, SystemProgram, type Keypair, type VersionedTransaction } from '@solana/web3.js';
import bs58 from 'bs58';
import type { ChainA } from '#lib/chains/chain-a/index.ts';
import type { PoolRecord } from '#lib/data/shielded-pools.ts';

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

/** The pool's asset, as the chain transactions take it. */
export const assetOf = (pool: PoolRecord): Asset => (pool.mint ? { mint: new PublicKey(pool.mint), decimals: pool.decimals } : {});

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

export { decodeSignedTransfer } from '#lib/chains/chain-a/settle.ts';

/** The fee of a one-signature transaction (lamports). */
export const SIGNATURE_FEE = 5_000n;

export { landing, settle, isAlreadyProcessed, type Landing, type Settlement } from '#lib/chains/chain-a/settle.ts';
