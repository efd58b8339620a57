import { buildAndSignTx } from '@lightprotocol/stateless.js';
import { SystemProgram, VersionedTransaction, type Keypair, type PublicKey } from '@solana/web3.js';
import bs58 from 'bs58';
import { ChainRejected, type ChainA } from '#lib/chains/chain-a/index.ts';

/**
 * The chain A transactions of the shielded pools: plain native-coin transfers (wallet → pool on
 * deposit, pool → recipient on withdrawal), built and signed before they are sent so that their
 * signature can be recorded first and asked about after a crash or a timeout.
 */
export interface SignedTransfer {
  tx: VersionedTransaction;
  /** The first signature, base58: the transaction's id. */
  signature: string;
  /** The signed bytes, base64, to send again unchanged. */
  bytes: string;
}

/** A transfer of `lamports` from `from` (who also pays the fee) to `to`, signed against a recent blockhash. */
export async function signedNativeTransfer(chain: ChainA, from: Keypair, to: PublicKey, lamports: bigint): Promise<SignedTransfer> {
  const { blockhash } = await chain.rpc.getLatestBlockhash();
  const tx = buildAndSignTx(
    [SystemProgram.transfer({ fromPubkey: from.publicKey, toPubkey: to, lamports })],
    from,
    blockhash,
  );
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
