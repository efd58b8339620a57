import { buildAndSignTx } from '@lightprotocol/stateless.js';
import { createAssociatedTokenAccountIdempotentInstruction, createTransferCheckedInstruction, getAssociatedTokenAddressSync } from '@solana/spl-token';
import { PublicKey, SystemProgram, type Keypair, type TransactionInstruction } from '@solana/web3.js';
import * as z from 'zod';
import { chainA } from '#lib/chains/chain-a/index.ts';
import { mintInfo, nativeBalance, tokenBalance } from '#lib/chains/chain-a/operations.ts';
import * as orders from '#lib/data/swap-orders.ts';
import { errors } from '#lib/errors.ts';
import { amountInput, formatUnits, toUnits } from '#lib/wallets/amounts.ts';
import { onChainA } from '#lib/wallets/chain-a-errors.ts';
import { keyVault, walletConfig } from '#lib/wallets/config.ts';
import { journaled, MoveUnsettled, submitted, type MoveOf } from '#lib/moves/journal.ts';
import { openKey } from '#lib/wallets/custody.ts';
import { chainAKeypair } from '#lib/wallets/keys.ts';
import { withWalletLock } from '#lib/wallets/lock.ts';
import { chainAAddress } from '#lib/wallets/addresses.ts';
import { chainASigner, ownedWallet } from '#lib/wallets/wallets.ts';
import { WSOL } from './chain.ts';

/**
 * Spending from a one-time address (docs/swap.md, sweep): `POST /api/swap/addresses/:address/sweep`
 * `{to, amount?}` moves the swap's output token held there (all of it when `amount` is left out)
 * to `to`, signed with the one-time key, which is sealed exactly like a wallet key and opened only
 * for this transaction. The caller's own addresses only: another user's is 404 like an unknown one.
 *
 * Who pays the network fee: the one-time address itself whenever it holds the lamports (a native
 * coin output always does: the fee comes out of it, and "all" means the balance less the fee).
 * A token output leaves it without lamports, so the wallet that made the swap pays the fee (and the
 * recipient's token account when it has none) and signs too: the answer names the fee payer, and
 * that wallet appears in the sweep as it did in the swap that paid the address.
 */
export const SIGNATURE_FEE = 5_000n;

export const sweepParams = z.object({ address: z.string().min(1).max(64) });
export const sweepInput = z.object({
  to: z
    .string({ error: (i) => (i.input === undefined ? 'is required' : 'must be a chain A address') })
    .min(1)
    .max(64),
  /** Whole units of the token (9 decimals for SOL); left out: everything there. */
  amount: amountInput.optional(),
});
const units = z.string().regex(/^\d+$/);
export const sweepView = z.object({
  address: z.string(),
  to: z.string(),
  token: z.object({ symbol: z.string(), mint: z.string(), decimals: z.number() }),
  amount: units,
  /** What the address still holds of the token after the sweep. */
  remaining: units,
  fee: units,
  feePayer: z.object({ kind: z.enum(['one-time', 'wallet']), address: z.string() }),
  txHash: z.string(),
  explorerUrl: z.string(),
});

async function oneTimeSigner(r: orders.OneTimeAddressRecord): Promise<Keypair> {
  const secret = await openKey(keyVault(), r.id, r.address, r.sealedKey);
  try {
    return await chainAKeypair(Uint8Array.from(secret));
  } finally {
    secret.fill(0);
  }
}

const ata = (mint: PublicKey, owner: PublicKey) => getAssociatedTokenAddressSync(mint, owner, true);

/**
 * The sweep's one transaction goes through the value-move journal (lib/moves/journal.ts): one the
 * chain has not settled in time answers 202 `submitted`, the request's Idempotency-Key (and, when
 * the wallet pays the fee, its lease) bound to it until the chain settles it.
 */
export async function sweep(
  userId: string,
  address: string,
  input: z.infer<typeof sweepInput>,
): Promise<z.infer<typeof sweepView> | ReturnType<typeof submitted>> {
  try {
    return await sweepOnce(userId, address, input);
  } catch (e) {
    if (e instanceof MoveUnsettled) return submitted(await chainA(), e.txHash);
    throw e;
  }
}

async function sweepOnce(userId: string, address: string, input: z.infer<typeof sweepInput>): Promise<z.infer<typeof sweepView>> {
  const record = await orders.getOneTimeAddress(userId, address);
  const order = record ? await orders.getOrder(userId, record.orderId) : undefined;
  if (!record || !order) throw errors.notFound('one-time address not found');
  const to = chainAAddress(input.to, 'to', errors.invalidAddress);
  const chain = await chainA();
  const owner = await oneTimeSigner(record);
  const mint = new PublicKey(order.toMint);
  const native = mint.equals(WSOL);
  const decimals = native ? 9 : (await onChainA(() => mintInfo(chain, mint))).decimals;
  const token = { symbol: order.to, mint: mint.toBase58(), decimals };
  const lamports = await onChainA(() => nativeBalance(chain, owner.publicKey));
  const explain = (units: bigint) => `${units} (${formatUnits(units, decimals)} ${token.symbol})`;

  if (native) {
    const amount = input.amount !== undefined ? toUnits(input.amount, 9) : lamports - SIGNATURE_FEE;
    if (lamports <= SIGNATURE_FEE) throw errors.nothingToSweep(`the address holds ${lamports} lamports, not more than the ${SIGNATURE_FEE} fee`);
    if (amount + SIGNATURE_FEE > lamports)
      throw errors.insufficientBalance(
        `insufficient balance: the address holds ${explain(lamports)}; ${explain(amount)} and the ${SIGNATURE_FEE} lamport fee it pays need ${amount + SIGNATURE_FEE}`,
      );
    // The chain refuses to leave an account with a balance below its rent-exempt minimum: all, or enough to stay.
    const left = lamports - amount - SIGNATURE_FEE;
    const minimum = BigInt(await onChainA(() => chain.rpc.getMinimumBalanceForRentExemption(0)));
    if (left > 0n && left < minimum)
      throw errors.insufficientBalance(
        `insufficient balance: ${left} lamports would be left, below the ${minimum} an account must keep; sweep all (leave out amount) or less`,
      );
    const sent = await send(owner, [SystemProgram.transfer({ fromPubkey: owner.publicKey, toPubkey: to, lamports: amount })], []);
    return answer(sent, { amount, remaining: left, fee: SIGNATURE_FEE, feePayer: { kind: 'one-time', address: record.address } });
  }

  const held = await onChainA(() => tokenBalance(chain, owner.publicKey, mint));
  if (held === 0n) throw errors.nothingToSweep(`the address holds no ${token.symbol}`);
  const amount = input.amount !== undefined ? toUnits(input.amount, decimals) : held;
  if (amount > held) throw errors.insufficientBalance(`insufficient balance: the address holds ${explain(held)}, the sweep asks for ${explain(amount)}`);
  const ixs = (payer: PublicKey): TransactionInstruction[] => [
    createAssociatedTokenAccountIdempotentInstruction(payer, ata(mint, to), to, mint),
    createTransferCheckedInstruction(ata(mint, owner.publicKey), mint, ata(mint, to), owner.publicKey, amount, decimals),
  ];
  const rest = { amount, remaining: held - amount };
  // The recipient's token account, when it has none, costs its rent besides the fee.
  const rent = (await onChainA(() => chain.rpc.getAccountInfo(ata(mint, to)))) ? 0n : BigInt(await chain.rpc.getMinimumBalanceForRentExemption(165));
  if (lamports >= SIGNATURE_FEE + rent) {
    const sent = await send(owner, ixs(owner.publicKey), []);
    return answer(sent, { ...rest, fee: SIGNATURE_FEE, feePayer: { kind: 'one-time', address: record.address } });
  }
  const w = await ownedWallet(userId, order.walletId);
  const payer = await chainASigner(w);
  const sent = await withWalletLock(w, async (leaseOwner) => {
    const have = await onChainA(() => nativeBalance(chain, payer.publicKey));
    if (have < 2n * SIGNATURE_FEE + rent)
      throw errors.insufficientBalance(
        `insufficient balance: wallet ${w.address} pays the sweep's fee (${2n * SIGNATURE_FEE + rent} lamports with the recipient's token account) and holds ${have}`,
      );
    return send(payer, ixs(payer.publicKey), [owner], { walletId: w.id, owner: leaseOwner, seconds: walletConfig.WALLET_LOCK_SECONDS });
  });
  return answer(sent, { ...rest, fee: 2n * SIGNATURE_FEE, feePayer: { kind: 'wallet', address: w.address } });

  async function send(payer: Keypair, list: TransactionInstruction[], others: Keypair[], lease?: MoveOf['lease']) {
    const { blockhash, lastValidBlockHeight } = await onChainA(() => chain.rpc.getLatestBlockhash());
    const via = journaled(chain, { userId, purpose: { kind: 'wallet-send', operation: 'sweep', ref: record!.address }, ...(lease ? { lease } : {}) });
    return onChainA(() => via(buildAndSignTx(list, payer, blockhash, others), lastValidBlockHeight));
  }
  function answer(
    sent: { signature: string },
    r: { amount: bigint; remaining: bigint; fee: bigint; feePayer: z.infer<typeof sweepView>['feePayer'] },
  ): z.infer<typeof sweepView> {
    return {
      address: record!.address,
      to: to.toBase58(),
      token,
      amount: r.amount.toString(),
      remaining: r.remaining.toString(),
      fee: r.fee.toString(),
      feePayer: r.feePayer,
      txHash: sent.signature,
      explorerUrl: chain.explorerUrl(sent.signature),
    };
  }
}
