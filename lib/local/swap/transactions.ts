import { buildAndSignTx } from '@lightprotocol/stateless.js';
import {
  createAssociatedTokenAccountIdempotentInstruction,
  createCloseAccountInstruction,
  createSyncNativeInstruction,
  createTransferCheckedInstruction,
  getAssociatedTokenAddressSync,
} from '@solana/spl-token';
import { SystemProgram, type Keypair, type PublicKey, type TransactionInstruction, type VersionedTransaction } from '@solana/web3.js';
import bs58 from 'bs58';
import type { ChainA, SentTransaction } from '#lib/chains/chain-a/index.ts';
import { tokenBalance } from '#lib/chains/chain-a/operations.ts';
import { WSOL } from '#lib/swap/chain.ts';

/**
 * The chain A transactions of the local swap pools, built with Solana's SPL token instructions.
 * A pool is a key owning two associated token accounts (its reserves); the native coin sits in
 * the pool as wrapped SOL. The token program enforces balances and signatures; the pricing and
 * the invariant are the pools' (pools.ts), which sign for the pool only under the pool's lease
 * and only for amounts priced from the reserves read under that lease.
 */
const ata = (mint: PublicKey, owner: PublicKey) => getAssociatedTokenAddressSync(mint, owner, true);

async function send(chain: ChainA, payer: Keypair, ixs: TransactionInstruction[], others: Keypair[]): Promise<SentTransaction> {
  const { blockhash } = await chain.rpc.getLatestBlockhash();
  return chain.sendAndConfirm(buildAndSignTx(ixs, payer, blockhash, others));
}

/** The pool's reserve of `mint`: its associated token account's balance. */
export const reserveOf = (chain: ChainA, pool: PublicKey, mint: PublicKey): Promise<bigint> => tokenBalance(chain, pool, mint);

/** Wraps `lamports` of the owner's native coin into its wrapped-SOL account (created when missing). */
export async function wrapNative(chain: ChainA, owner: Keypair, lamports: bigint): Promise<SentTransaction> {
  const account = ata(WSOL, owner.publicKey);
  return send(
    chain,
    owner,
    [
      createAssociatedTokenAccountIdempotentInstruction(owner.publicKey, account, owner.publicKey, WSOL),
      SystemProgram.transfer({ fromPubkey: owner.publicKey, toPubkey: account, lamports }),
      createSyncNativeInstruction(account),
    ],
    [],
  );
}

export interface SwapLegs {
  user: Keypair;
  pool: Keypair;
  /** Who receives the output: the user's wallet, or a one-time address of the user's. */
  recipient: Keypair;
  fromMint: PublicKey;
  fromDecimals: number;
  toMint: PublicKey;
  toDecimals: number;
  amountIn: bigint;
  amountOut: bigint;
  /**
   * A shielded-pool deposit funded by the output, in the same transaction: `units` of the output
   * token from the user (the recipient then) to the pool account `to`, as a direct deposit moves it.
   */
  deposit?: { to: PublicKey; units: bigint };
}

export interface SignedSwap {
  tx: VersionedTransaction;
  /** The first signature, base58: the transaction's id, known before it is sent. */
  signature: string;
  /** The block height after which its blockhash has expired (the value-move journal's record). */
  lastValidBlockHeight: number;
}

/**
 * ONE transaction, both legs: the user's input into the pool's reserve and the pool's output to
 * the recipient, signed by the user (payer, input), the pool (output) and, for a native-coin
 * output, the recipient (it closes its temporary wrapped-SOL account into plain lamports); with a
 * `deposit`, the output then pays the shielded pool from the user's account in the same
 * transaction. Either everything moves or nothing does. Signed here, sent by the caller (its
 * signature is journalled first).
 */
export async function signedSwap(chain: ChainA, l: SwapLegs): Promise<SignedSwap> {
  if (l.deposit && !l.recipient.publicKey.equals(l.user.publicKey)) throw new Error("a swap deposit is paid from the user's own output");
  const user = l.user.publicKey;
  const pool = l.pool.publicKey;
  const recipient = l.recipient.publicKey;
  const ixs: TransactionInstruction[] = [];
  const userIn = ata(l.fromMint, user);
  if (l.fromMint.equals(WSOL)) {
    ixs.push(
      createAssociatedTokenAccountIdempotentInstruction(user, userIn, user, WSOL),
      SystemProgram.transfer({ fromPubkey: user, toPubkey: userIn, lamports: l.amountIn }),
      createSyncNativeInstruction(userIn),
    );
  }
  ixs.push(createTransferCheckedInstruction(userIn, l.fromMint, ata(l.fromMint, pool), user, l.amountIn, l.fromDecimals));
  if (l.fromMint.equals(WSOL)) ixs.push(createCloseAccountInstruction(userIn, user, user));

  const out = ata(l.toMint, recipient);
  ixs.push(
    createAssociatedTokenAccountIdempotentInstruction(user, out, recipient, l.toMint),
    createTransferCheckedInstruction(ata(l.toMint, pool), l.toMint, out, pool, l.amountOut, l.toDecimals),
  );
  const signers = [l.pool];
  if (l.toMint.equals(WSOL)) {
    ixs.push(createCloseAccountInstruction(out, recipient, recipient));
    if (!recipient.equals(user)) signers.push(l.recipient);
  }
  if (l.deposit) {
    const d = l.deposit;
    if (l.toMint.equals(WSOL)) ixs.push(SystemProgram.transfer({ fromPubkey: user, toPubkey: d.to, lamports: d.units }));
    else {
      const poolAccount = ata(l.toMint, d.to);
      ixs.push(
        createAssociatedTokenAccountIdempotentInstruction(user, poolAccount, d.to, l.toMint),
        createTransferCheckedInstruction(out, l.toMint, poolAccount, user, d.units, l.toDecimals),
      );
    }
  }
  const { blockhash, lastValidBlockHeight } = await chain.rpc.getLatestBlockhash();
  const tx = buildAndSignTx(ixs, l.user, blockhash, signers);
  return { tx, signature: bs58.encode(tx.signatures[0]!), lastValidBlockHeight };
}
