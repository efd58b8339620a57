import { randomUUID } from 'node:crypto';
import { PublicKey, type Keypair } from '@solana/web3.js';
import { chainA, ChainRejected } from '#lib/chains/chain-a/index.ts';
import { mintInfo, tokenBalance } from '#lib/chains/chain-a/operations.ts';
import { clock } from '#lib/clock.ts';
import type { OrderRecord } from '#lib/data/swap-orders.ts';
import type { WalletRecord } from '#lib/data/wallets.ts';
import { errors } from '#lib/errors.ts';
import { journaled, MoveUnsettled } from '#lib/moves/journal.ts';
import { toUnits } from '#lib/wallets/amounts.ts';
import { onChainA } from '#lib/wallets/chain-a-errors.ts';
import { walletConfig } from '#lib/wallets/config.ts';
import { chainAAddress } from '#lib/wallets/addresses.ts';
import { checkInput, WSOL } from './chain.ts';
import { swapConfig } from './config.ts';
import { AggregatorRefused, AggregatorUnavailable, JupiterClient, jupiterQuoteSchema, quoteTerms, signSwap, UnsafeTransaction } from './jupiter.ts';

/**
 * The swap routes on a real network: quotes and executions through Jupiter (jupiter.ts). Tokens
 * are `SOL`, `USDC`, `USDT` or any mint address; the quote Jupiter returned is stored with the
 * order and posted back unchanged at execution; the transaction it builds is checked, signed by
 * the wallet and sent through chain A's port. Jupiter's program enforces the minimum output on
 * chain (its SlippageToleranceExceeded error answers 409 SLIPPAGE_EXCEEDED).
 */
const KNOWN: Record<string, { mint: string; decimals: number }> = {
  SOL: { mint: WSOL.toBase58(), decimals: 9 },
  USDC: { mint: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v', decimals: 6 },
  USDT: { mint: 'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB', decimals: 6 },
};
/** Jupiter's program error when the route's output fell below `otherAmountThreshold`. */
const JUPITER_SLIPPAGE_EXCEEDED = 6001;

const client = new JupiterClient(swapConfig.JUPITER_API_URL);

async function token(s: string) {
  const known = KNOWN[s.toUpperCase()];
  if (known) return { symbol: s.toUpperCase(), mint: new PublicKey(known.mint), decimals: known.decimals };
  const mint = chainAAddress(s, 'from/to', errors.unsupportedPair);
  const chain = await chainA();
  const { decimals } = await onChainA(() => mintInfo(chain, mint));
  return { symbol: mint.toBase58(), mint, decimals };
}

async function aggregator<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if (e instanceof AggregatorRefused) throw e.noRoute ? errors.unsupportedPair(`Jupiter: ${e.message}`) : errors.invalidInput(`Jupiter: ${e.message}`);
    if (e instanceof AggregatorUnavailable) throw errors.rpcError(`the aggregator is unavailable (${e.message})`);
    if (e instanceof UnsafeTransaction) throw errors.rpcError(`the aggregator's transaction was refused before signing: ${e.message}`);
    throw e;
  }
}

export async function quoteViaJupiter(
  userId: string,
  w: WalletRecord,
  input: { from: string; to: string; amount: number; slippageBps: number; output: 'wallet' | 'one-time' },
) {
  if (input.output === 'one-time') throw errors.invalidInput('output: one-time addresses are offered by the local pools only');
  const [tokenIn, tokenOut] = await Promise.all([token(input.from), token(input.to)]);
  if (tokenIn.mint.equals(tokenOut.mint)) throw errors.unsupportedPair('from and to are the same token');
  const amountIn = toUnits(input.amount, tokenIn.decimals);
  const chain = await chainA();
  await onChainA(() => checkInput(chain, { owner: new PublicKey(w.address), fromMint: tokenIn.mint, amountIn }));
  const q = await aggregator(() => client.quote({ inputMint: tokenIn.mint, outputMint: tokenOut.mint, amount: amountIn, slippageBps: input.slippageBps }));
  const terms = quoteTerms(q);
  const fee = terms.route.filter((h) => h.feeMint === tokenIn.mint.toBase58()).reduce((s, h) => s + BigInt(h.fee), 0n);
  const record: OrderRecord = {
    id: randomUUID(),
    userId,
    walletId: w.id,
    pairId: `${tokenIn.symbol}-${tokenOut.symbol}`,
    adapter: 'jupiter',
    from: tokenIn.symbol,
    to: tokenOut.symbol,
    fromMint: tokenIn.mint.toBase58(),
    toMint: tokenOut.mint.toBase58(),
    amountIn: amountIn.toString(),
    amountOut: terms.amountOut.toString(),
    minAmountOut: terms.minAmountOut.toString(),
    fee: fee.toString(),
    priceImpactBps: terms.priceImpactBps,
    slippageBps: input.slippageBps,
    privateOutput: false,
    status: 'quoted',
    createdAt: clock.now().toISOString(),
    expiresAt: clock.nowMs() + swapConfig.SWAP_QUOTE_SECONDS * 1000,
    route: q,
  };
  return { record, tokenIn, tokenOut, hops: terms.route };
}

/**
 * Sends the stored quote's transaction, signed by `user`, through the value-move journal
 * (lib/moves/journal.ts): the signed bytes and Jupiter's `lastValidBlockHeight` are recorded before
 * the send, the wallet's lease (`owner`'s) and the Idempotency-Key are bound to it, and only the
 * chain settles it — not settled in time, MoveUnsettled (the route answers 202 `submitted`, the
 * journal executes or fails the order, with the quoted amount). The output is measured on chain
 * for tokens when it landed at once.
 */
export async function executeViaJupiter(order: OrderRecord, user: Keypair, owner: string) {
  const quote = jupiterQuoteSchema.parse(order.route);
  const chain = await chainA();
  const out = new PublicKey(order.toMint);
  const measured = !out.equals(WSOL);
  const before = measured ? await onChainA(() => tokenBalance(chain, user.publicKey, out)) : 0n;
  const { tx, lastValidBlockHeight } = await aggregator(() => client.swap(quote, user.publicKey));
  signSwap(tx, user);
  const via = journaled(chain, {
    userId: order.userId,
    purpose: { kind: 'swap', orderId: order.id, amountOut: order.amountOut, outputAddress: user.publicKey.toBase58() },
    lease: { walletId: order.walletId, owner, seconds: walletConfig.WALLET_LOCK_SECONDS },
  });
  let sent;
  try {
    sent = await via(tx, lastValidBlockHeight);
  } catch (e) {
    if (e instanceof MoveUnsettled) throw e;
    if (e instanceof ChainRejected && e.customCode === JUPITER_SLIPPAGE_EXCEEDED)
      throw errors.slippageExceeded("the route gave less than the quote's minimum at execution; ask for a new quote");
    return onChainA(() => Promise.reject(e));
  }
  // Native SOL output: the fee and rent moves blur the lamport balance; the quote's amount stands.
  // So it does when the balance cannot be read now: the swap landed, and an error here would mark a
  // landed order failed and free its Idempotency-Key.
  const amountOut = measured
    ? await tokenBalance(chain, user.publicKey, out).then(
        (after) => after - before,
        () => BigInt(order.amountOut),
      )
    : BigInt(order.amountOut);
  return { ...sent, amountOut };
}
