import { randomUUID } from 'node:crypto';
import { Keypair, PublicKey } from '@solana/web3.js';
import * as z from 'zod';
import { chainA } from '#lib/chains/chain-a/index.ts';
import { clock } from '#lib/clock.ts';
import * as orders from '#lib/data/swap-orders.ts';
import { type DepositRecord } from '#lib/data/shielded-pools.ts';
import type { OrderRecord } from '#lib/data/swap-orders.ts';
import type { WalletRecord } from '#lib/data/wallets.ts';
import { errors, isAppError } from '#lib/errors.ts';
import { logger } from '#lib/log.ts';
import { accrueAfter, forgetOwed, noteOwed, type AccrueInput } from '#lib/rewards/accrue.ts';
import { completeDeposit } from '#lib/transfer/deposits.ts';
import { toUnits } from '#lib/wallets/amounts.ts';
import { onChainA } from '#lib/wallets/chain-a-errors.ts';
import { keyVault, walletConfig } from '#lib/wallets/config.ts';
import { journaled, MoveUnsettled, submitted } from '#lib/moves/journal.ts';
import { sealKey } from '#lib/wallets/custody.ts';
import { withWalletLock } from '#lib/wallets/lock.ts';
import { chainASigner, ownedWallet } from '#lib/wallets/wallets.ts';
import { executeViaJupiter, quoteViaJupiter } from './aggregator.ts';
import { checkInput } from './chain.ts';
import { swapConfig } from './config.ts';
import { kindOf, viewToken, quoteAnswer, type depositDoneView, type executeInput, type executeView, type quoteInput, type quoteView } from './http.ts';
import { minOut, priceOrRefuse } from './pricing.ts';
import { checkShieldedQuote, shieldedLeg } from './shielded.ts';
import { swapVenue } from './venue-port.ts';

/**
 * Privacy swaps (docs/swap.md): quote, then execute the quote once. The local adapter's pools are
 * the swap venue's (venue-port.ts; on the local chain A), Jupiter's routes the aggregator's
 * (aggregator.ts); the schemas and views are http.ts's. The quote is stored and executing it is a conditional
 * update, so a quote runs at most once whatever the retries. Every execution holds the wallet's
 * lease, then the pool's, and re-prices from the reserves at that moment.
 */

async function chainAWallet(userId: string, walletId: string): Promise<WalletRecord> {
  const w = await ownedWallet(userId, walletId);
  if (w.chain !== 'a') throw errors.invalidInput('walletId: swaps need a chain A wallet');
  return w;
}

export async function pairs() {
  // Jupiter routes any pair it can find: there is no pool list to show.
  if (swapConfig.adapter === 'jupiter') return { adapter: 'jupiter', pairs: [] };
  const venue = await swapVenue();
  const list = await onChainA(() => venue.pairs());
  return {
    adapter: 'local',
    pairs: await Promise.all(
      list.map(async (p) => {
        const r = await onChainA(() => venue.reserves(p, p.base, p.quote));
        return {
          pairId: p.pairId,
          base: viewToken(p.base),
          quote: viewToken(p.quote),
          feeBps: p.feeBps,
          pool: p.pool,
          reserves: { base: r.reserveIn.toString(), quote: r.reserveOut.toString() },
        };
      }),
    ),
  };
}

export async function quote(userId: string, input: z.infer<typeof quoteInput>): Promise<z.infer<typeof quoteView>> {
  const w = await chainAWallet(userId, input.walletId);
  const kind = kindOf(input.output);
  if (swapConfig.adapter === 'jupiter') {
    if (kind === 'shielded') throw errors.invalidInput('output: shielded deposits are offered by the local pools only');
    const j = await quoteViaJupiter(userId, w, { ...input, output: kind });
    await orders.insertQuote(j.record);
    return quoteAnswer(j.record, j.tokenIn, j.tokenOut, { adapter: 'jupiter', pairId: j.record.pairId, hops: j.hops });
  }
  const venue = await swapVenue();
  const { pair, tokenIn, tokenOut } = await onChainA(() => venue.findPair(input.from, input.to));
  const amountIn = toUnits(input.amount, tokenIn.decimals);
  const r = await onChainA(() => venue.reserves(pair, tokenIn, tokenOut));
  const priced = priceOrRefuse(r, amountIn, pair.feeBps);
  const chain = await chainA();
  await onChainA(() => checkInput(chain, { owner: new PublicKey(w.address), fromMint: tokenIn.mint, amountIn }));
  const minAmountOut = minOut(priced.amountOut, input.slippageBps);
  const shielded =
    typeof input.output === 'object'
      ? await checkShieldedQuote(input.output, { tokenIn, tokenOut, reserves: r, feeBps: pair.feeBps, slippageBps: input.slippageBps, minAmountOut })
      : undefined;
  const record: OrderRecord = {
    id: randomUUID(),
    userId,
    walletId: w.id,
    pairId: pair.pairId,
    adapter: 'local',
    from: tokenIn.symbol,
    to: tokenOut.symbol,
    fromMint: tokenIn.mint.toBase58(),
    toMint: tokenOut.mint.toBase58(),
    amountIn: amountIn.toString(),
    amountOut: priced.amountOut.toString(),
    minAmountOut: minAmountOut.toString(),
    fee: priced.fee.toString(),
    priceImpactBps: priced.priceImpactBps,
    slippageBps: input.slippageBps,
    privateOutput: kind === 'one-time',
    ...(shielded ? { shielded: { pool: shielded.pool.id, commitment: shielded.commitment, denomination: shielded.pool.denomination } } : {}),
    status: 'quoted',
    createdAt: clock.now().toISOString(),
    expiresAt: clock.nowMs() + swapConfig.SWAP_QUOTE_SECONDS * 1000,
  };
  await orders.insertQuote(record);
  const route = {
    adapter: 'local' as const,
    pairId: pair.pairId,
    pool: pair.pool,
    reserveIn: r.reserveIn.toString(),
    reserveOut: r.reserveOut.toString(),
  };
  return quoteAnswer(record, tokenIn, tokenOut, route);
}

/** A fresh key for one swap's output, sealed and stored (listed for the user) before it is used. */
async function oneTimeRecipient(userId: string, orderId: string): Promise<Keypair> {
  const kp = Keypair.generate();
  const id = randomUUID();
  const address = kp.publicKey.toBase58();
  await orders.insertOneTimeAddress({
    id,
    userId,
    address,
    orderId,
    sealedKey: await sealKey(keyVault(), id, address, kp.secretKey),
    createdAt: clock.now().toISOString(),
  });
  return kp;
}

/** Refusals that happen before any transaction is built. */
const RETRYABLE = new Set(['WALLET_LOCKED', 'SERVICE_UNAVAILABLE']);

/**
 * Executes a claimed quote. The local pools' one transaction goes through the value-move journal
 * (lib/moves/journal.ts): one the chain has not settled in time answers 202 `submitted`, the order
 * stays `executing`, the wallet and the Idempotency-Key stay bound to it, and the journal executes
 * or fails the order once the chain settles it.
 */
export async function execute(userId: string, input: z.infer<typeof executeInput>): Promise<z.infer<typeof executeView> | ReturnType<typeof submitted>> {
  const claimed = z.uuid().safeParse(input.quoteId).success ? await orders.claimQuote(userId, input.quoteId) : ({ ok: false, reason: 'missing' } as const);
  if (!claimed.ok) {
    if (claimed.reason === 'missing') throw errors.quoteNotFound();
    throw claimed.reason === 'expired' ? errors.quoteExpired() : errors.quoteUsed();
  }
  const order = claimed.order;
  let sent: { signature: string; slot: number; amountOut: bigint };
  let recipient: Keypair;
  let shielded: Awaited<ReturnType<typeof shieldedLeg>> | undefined;
  try {
    const chain = await chainA();
    const w = await chainAWallet(userId, order.walletId);
    const user = await chainASigner(w);
    shielded = order.shielded ? await shieldedLeg(order) : undefined;
    recipient = order.privateOutput ? await oneTimeRecipient(userId, order.id) : user;
    const to = recipient;
    const leg = shielded?.leg;
    // The swap's points are noted as owed before the send: a crash after it loses nothing.
    let noted: AccrueInput | undefined;
    const journal = {
      beforeSend: async (signature: string, amountOut: bigint) => noteOwed((noted = swapAccrual(userId, order, signature, amountOut))),
      refused: async () => (noted ? forgetOwed(noted) : undefined),
    };
    sent = await withWalletLock(w, (owner) =>
      order.adapter === 'jupiter'
        ? executeViaJupiter(order, user, owner)
        : onChainA(async () =>
            (await swapVenue()).execute({
              user,
              recipient: to,
              pairId: order.pairId,
              from: order.fromMint,
              to: order.toMint,
              amountIn: BigInt(order.amountIn),
              minAmountOut: BigInt(order.minAmountOut),
              ...(leg ? { shielded: leg } : {}),
              journal,
              via: (amountOut) =>
                journaled(chain, {
                  userId,
                  purpose: {
                    kind: 'swap',
                    orderId: order.id,
                    amountOut: amountOut.toString(),
                    outputAddress: shielded ? shielded.pool.address : to.publicKey.toBase58(),
                    ...(shielded ? { depositId: shielded.deposit().id } : {}),
                  },
                  lease: { walletId: w.id, owner, seconds: walletConfig.WALLET_LOCK_SECONDS },
                }),
            }),
          ),
    );
  } catch (e) {
    // Sent, not settled: the order stays `executing` for the journal to finish (afterSettled).
    if (e instanceof MoveUnsettled) return submitted(await chainA(), e.txHash);
    // A busy wallet or pool turned it away before anything was built: the quote may be retried
    // until it expires. Any other refusal (or a send that may have failed) uses it up.
    if (isAppError(e) && RETRYABLE.has(e.code)) await orders.releaseQuote(order);
    else await orders.markFailed(order, isAppError(e) ? e.code : 'INTERNAL');
    throw e;
  }
  const outputAddress = shielded ? shielded.pool.address : recipient.publicKey.toBase58();
  const deposit = shielded ? await finishShielded(order, shielded.deposit()) : undefined;
  // Landed: a failure to mark the order now (DynamoDB down) must not fail the request, which would free
  // the Idempotency-Key of a swap that moved value. The journal's settlement marked it executed
  // already, or its pass will (afterSettled).
  await Promise.all([
    orders
      .markExecuted(order, {
        txHash: sent.signature,
        executedAmountOut: sent.amountOut.toString(),
        outputAddress,
        ...(deposit
          ? {
              shielded: {
                ...order.shielded!,
                depositId: deposit.id,
                ...(deposit.leafIndex !== undefined ? { leafIndex: deposit.leafIndex, root: deposit.root! } : {}),
              },
            }
          : {}),
      })
      .catch((e: unknown) => logger.warn('swap landed, its order not marked executed here; the journal does', { orderId: order.id, error: e as Error })),
    accrueAfter(swapAccrual(userId, order, sent.signature, sent.amountOut)),
  ]);
  const chain = await chainA();
  return {
    orderId: order.id,
    txHash: sent.signature,
    amountIn: order.amountIn,
    amountOut: sent.amountOut.toString(),
    outputAddress,
    explorerUrl: chain.explorerUrl(sent.signature),
    ...(deposit ? { deposit } : {}),
  };
}

/**
 * The swap landed with its deposit: the commitment goes into the tree. A failure there (a busy
 * tree, a store outage) never undoes the swap: the deposit is left `transferred` for the transfer
 * retry job, which appends it, and the answer says so.
 */
async function finishShielded(o: OrderRecord, d: DepositRecord): Promise<z.infer<typeof depositDoneView>> {
  const base = { id: d.id, pool: d.poolId, commitment: d.commitment, denomination: o.shielded!.denomination };
  try {
    const done = await completeDeposit(d);
    return {
      ...base,
      status: 'complete',
      ...(done.leafIndex !== undefined ? { leafIndex: done.leafIndex } : {}),
      ...(done.root !== undefined ? { root: done.root } : {}),
    };
  } catch (e) {
    logger.warn('swap deposit landed, its append is left to the transfer retry job', { depositId: d.id, error: e instanceof Error ? e.message : String(e) });
    return { ...base, status: 'transferred' };
  }
}

/** The swap's accrual (the rewards rule counts the fee the user paid: lib/rewards/rules.ts). A failure there never undoes the swap. */
function swapAccrual(userId: string, _o: OrderRecord, txHash: string, _amountOut: bigint): AccrueInput {
  return { userId, source: 'swap', txHash };
}
