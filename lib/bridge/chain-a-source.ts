import { buildAndSignTx } from '@lightprotocol/stateless.js';
import bs58 from 'bs58';
import { createTransferCheckedInstruction, getAssociatedTokenAddressSync, TOKEN_PROGRAM_ID } from '@solana/spl-token';
import { PublicKey, SystemProgram, TransactionInstruction, type Keypair, type MessageCompiledInstruction, type VersionedMessage } from '@solana/web3.js';
import type { ChainA, SentTransaction } from '#lib/chains/chain-a/index.ts';
import { nativeBalance, NotEnough, tokenBalance, type Sender } from '#lib/chains/chain-a/operations.ts';
import type { HyperlaneToken } from './routes.ts';

/**
 * The source side of a chain A → chain B deposit. The warp route's program keeps what it bridges
 * in its escrow: the native coin in the PDA `["hyperlane_token", "-", "native_collateral"]`, SPL
 * collateral in the token account PDA `["hyperlane_token", "-", "escrow"]` (hyperlane-monorepo,
 * rust/sealevel/libraries/hyperlane-sealevel-token). The deposit is a transfer of the amount into
 * that escrow plus an SPL Memo `shroud-bridge:<record id>`, which binds the transaction to one
 * bridge record: the relayer credits only a confirmed transaction that carries the memo of the
 * record it credits, moves exactly the amount, and lands in the route's escrow.
 */
export const MEMO_PROGRAM_ID = new PublicKey('MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr');

export const memoOf = (recordId: string) => `shroud-bridge:${recordId}`;

export function escrowAccount(route: HyperlaneToken): PublicKey {
  const seed = route.originStandard === 'SealevelHypNative' ? 'native_collateral' : 'escrow';
  const [pda] = PublicKey.findProgramAddressSync([Buffer.from('hyperlane_token'), Buffer.from('-'), Buffer.from(seed)], new PublicKey(route.originRouter));
  return pda;
}

const memo = (signer: PublicKey, text: string) =>
  new TransactionInstruction({ programId: MEMO_PROGRAM_ID, keys: [{ pubkey: signer, isSigner: true, isWritable: false }], data: Buffer.from(text, 'utf8') });

/** What the source transaction must do: for the instructions and for the relayer's check. */
export function depositTransfer(route: HyperlaneToken, from: PublicKey) {
  const escrow = escrowAccount(route);
  if (!route.originMint) return { escrow, source: from, mint: null };
  const mint = new PublicKey(route.originMint);
  return { escrow, source: getAssociatedTokenAddressSync(mint, from, true), mint };
}

/**
 * The route's mint and escrow token account where the chain starts without them (the embedded
 * chain: ChainA.prepareRoute; a live cluster does nothing). The native coin's route has no mint.
 */
export async function prepareRoute(chain: ChainA, route: HyperlaneToken, escrow?: PublicKey): Promise<void> {
  if (route.originMint) await chain.prepareRoute(new PublicKey(route.originMint), route.decimals, escrow);
}

/**
 * Sends the deposit from the wallet `signer`; NotEnough when it cannot cover the amount.
 * `beforeSend` runs once the balance has passed, just before sending, with the signature the
 * transaction will have (the service's deposit writes its record there, so that one refused
 * before anything is sent leaves none, and keeps the signature in case the outcome is unknown);
 * `via` sends it (the value-move journal, lib/moves/journal.ts).
 */
export async function sendDeposit(
  chain: ChainA,
  signer: Keypair,
  route: HyperlaneToken,
  amount: bigint,
  recordId: string,
  beforeSend?: (signature: string) => Promise<void>,
  via?: Sender,
): Promise<SentTransaction> {
  const t = depositTransfer(route, signer.publicKey);
  await prepareRoute(chain, route, t.escrow);
  let move: TransactionInstruction;
  if (!t.mint) {
    const have = await nativeBalance(chain, signer.publicKey);
    if (have < amount) throw new NotEnough('lamports', have, amount);
    move = SystemProgram.transfer({ fromPubkey: signer.publicKey, toPubkey: t.escrow, lamports: amount });
  } else {
    const have = await tokenBalance(chain, signer.publicKey, t.mint);
    if (have < amount) throw new NotEnough(`tokens of ${t.mint.toBase58()}`, have, amount);
    move = createTransferCheckedInstruction(t.source, t.mint, t.escrow, signer.publicKey, amount, route.decimals, [], TOKEN_PROGRAM_ID);
  }
  const { blockhash, lastValidBlockHeight } = await chain.rpc.getLatestBlockhash();
  const tx = buildAndSignTx([move, memo(signer.publicKey, memoOf(recordId))], signer, blockhash);
  await beforeSend?.(bs58.encode(tx.signatures[0]!));
  return via ? via(tx, lastValidBlockHeight) : chain.sendAndConfirm(tx);
}

export type SourceCheck = { ok: true; slot: number } | { ok: false; missing: true } | { ok: false; missing: false; reason: string };

/** Whether `signature` is a confirmed, successful deposit of exactly `amount` into the route's escrow for `recordId`. */
export async function checkDeposit(chain: ChainA, signature: string, route: HyperlaneToken, amount: bigint, recordId: string): Promise<SourceCheck> {
  const tx = await chain.rpc.getTransaction(signature, { maxSupportedTransactionVersion: 0, commitment: 'confirmed' });
  if (!tx) return { ok: false, missing: true };
  if (tx.meta?.err) return { ok: false, missing: false, reason: 'the source transaction failed on chain A' };
  const message: VersionedMessage = tx.transaction.message;
  const keys = message.staticAccountKeys;
  const ixs: MessageCompiledInstruction[] = message.compiledInstructions;
  const program = (ix: MessageCompiledInstruction) => keys[ix.programIdIndex];
  const hasMemo = ixs.some((ix) => program(ix)?.equals(MEMO_PROGRAM_ID) && Buffer.from(ix.data).toString('utf8') === memoOf(recordId));
  if (!hasMemo) return { ok: false, missing: false, reason: "the source transaction does not carry this bridge record's memo" };
  const escrow = escrowAccount(route);
  const moved = ixs.some((ix) => {
    const accounts = ix.accountKeyIndexes.map((i) => keys[i]!);
    if (!route.originMint) {
      // System Transfer: [2 u32 LE, lamports u64 LE]; accounts from, to.
      if (!program(ix)?.equals(SystemProgram.programId) || ix.data.length !== 12) return false;
      const data = Buffer.from(ix.data);
      return data.readUInt32LE(0) === 2 && accounts[1]?.equals(escrow) === true && data.readBigUInt64LE(4) === amount;
    }
    // SPL Token TransferChecked: [12, amount u64 LE, decimals u8]; accounts source, mint, destination, owner.
    if (!program(ix)?.equals(TOKEN_PROGRAM_ID) || ix.data.length !== 10 || ix.data[0] !== 12) return false;
    const value = Buffer.from(ix.data).readBigUInt64LE(1);
    return accounts[1]?.toBase58() === route.originMint && accounts[2]?.equals(escrow) === true && value === amount;
  });
  if (!moved) return { ok: false, missing: false, reason: "the source transaction does not move the amount into the route's escrow" };
  return { ok: true, slot: tx.slot };
}
