import { randomUUID } from 'node:crypto';
import { Keypair, PublicKey } from '@solana/web3.js';
import * as z from 'zod';
import { chainA } from '#lib/chains/chain-a/index.ts';
import { clock } from '#lib/clock.ts';
import * as orders from '#lib/data/swap-orders.ts';
import { getDeposit, type DepositRecord } from '#lib/data/shielded-pools.ts';
import type { OrderRecord } from '#lib/data/swap-orders.ts';
import type { WalletRecord } from '#lib/data/wallets.ts';
import { errors, isAppError } from '#lib/errors.ts';
import { logger } from '#lib/log.ts';
import { accrueAfter, forgetOwed, noteOwed, type AccrueInput } from '#lib/rewards/accrue.ts';
import { completeDeposit } from '#lib/transfer/deposits.ts';
import { amountInput, toUnits } from '#lib/wallets/amounts.ts';
import { onChainA } from '#lib/wallets/chain-a-errors.ts';
import { keyVault, walletConfig } from '#lib/wallets/config.ts';
import { journaled, MoveUnsettled, submitted } from '#lib/moves/journal.ts';
import { sealKey } from '#lib/wallets/custody.ts';
import { withWalletLock } from '#lib/wallets/lock.ts';
import { chainASigner, ownedWallet } from '#lib/wallets/wallets.ts';
import { executeViaJupiter, quoteViaJupiter } from './aggregator.ts';
import { checkInput } from './chain.ts';
import { swapConfig } from './config.ts';
import { executeLocal, findPair, localPairs, minOut, priceOrRefuse, reserves } from './local.ts';
import { checkShieldedQuote, shieldedLeg } from './shielded.ts';

/**
 * Privacy swaps (README "Swap"): quote, then execute the quote once. The local adapter's pools
 * live on the local chain A (local.ts); the quote is stored and executing it is a conditional
 * update, so a quote runs at most once whatever the retries. Every execution holds the wallet's
 * lease, then the pool's, and re-prices from the reserves at that moment.
 */
const str = (what: string) => z.string({ error: (i) => (i.input === undefined ? 'is required' : `must be a ${what}`) });

export const quoteInput = z.object({
  walletId: str('string').min(1).max(64),
  from: str('token symbol or mint address').min(1).max(64),
  to: str('token symbol or mint address').min(1).max(64),
  amount: amountInput,
  slippageBps: z.number({ error: 'must be an integer 0–5000' }).int('must be an integer').min(0).max(5000),
  /**
   * `one-time`: the output goes to a fresh address of the user's; `{type: "shielded", pool,
   * commitment}`: into that shielded pool's deposit, the commitment computed by the client (the
   * note's secret never reaches the service), as `POST /api/transfer/deposit` takes it. See `privacy`.
   */
  output: z
    .union(
      [
        z.enum(['wallet', 'one-time']),
        z.object({
          type: z.literal('shielded'),
          pool: str('string').min(1).max(64),
          commitment: str('string').regex(/^\d{1,78}$/, 'must be a decimal string of at most 78 digits'),
        }),
      ],
      { error: 'must be "wallet", "one-time" or {type: "shielded", pool, commitment}' },
    )
    .default('wallet'),
});
type OutputKind = 'wallet' | 'one-time' | 'shielded';
const kindOf = (o: z.infer<typeof quoteInput>['output']): OutputKind => (typeof o === 'string' ? o : o.type);
export const executeInput = z.object({ quoteId: str('string').min(1).max(64) });
export const orderParams = z.object({ id: z.string().min(1).max(64) });

const units = z.string().regex(/^\d+$/);
const tokenView = z.object({ symbol: z.string(), mint: z.string(), decimals: z.number() });
export const privacyView = z.object({ output: z.enum(['wallet', 'one-time', 'shielded']), hides: z.array(z.string()), doesNotHide: z.array(z.string()) });
/** The shielded deposit a swap pays: quoted (pool, denomination, surplus to the wallet), then executed (its deposit). */
const quoteDepositView = z.object({ pool: z.string(), commitment: z.string(), denomination: units, surplus: units, minSurplus: units });
const depositDoneView = z.object({
  id: z.string(),
  pool: z.string(),
  commitment: z.string(),
  denomination: units,
  status: z.enum(['transferred', 'complete']),
  leafIndex: z.number().optional(),
  root: z.string().optional(),
});
export const quoteView = z.object({
  quoteId: z.string(),
  walletId: z.string(),
  from: tokenView,
  to: tokenView,
  amountIn: units,
  amountOut: units,
  minAmountOut: units,
  priceImpactBps: z.number(),
  fee: units,
  feeBps: z.number(),
  /** local: the pool and the reserves priced from; jupiter: the aggregator's hops. */
  route: z.object({
    adapter: z.enum(['local', 'jupiter']),
    pairId: z.string(),
    pool: z.string().optional(),
    reserveIn: units.optional(),
    reserveOut: units.optional(),
    hops: z
      .array(
        z.object({
          amm: z.string(),
          label: z.string(),
          inputMint: z.string(),
          outputMint: z.string(),
          percent: z.number(),
          fee: z.string(),
          feeMint: z.string(),
        }),
      )
      .optional(),
  }),
  expiresAt: z.string(),
  privacy: privacyView,
  deposit: quoteDepositView.optional(),
});
export const executeView = z.object({
  orderId: z.string(),
  txHash: z.string(),
  amountIn: units,
  amountOut: units,
  outputAddress: z.string(),
  explorerUrl: z.string(),
  deposit: depositDoneView.optional(),
});
export const orderView = z.object({
  id: z.string(),
  status: z.enum(['quoted', 'executing', 'executed', 'failed']),
  walletId: z.string(),
  from: z.string(),
  to: z.string(),
  amountIn: units,
  amountOut: units,
  minAmountOut: units,
  fee: units,
  priceImpactBps: z.number(),
  output: z.enum(['wallet', 'one-time', 'shielded']),
  outputAddress: z.string().optional(),
  deposit: z
    .object({
      pool: z.string(),
      commitment: z.string(),
      denomination: units,
      id: z.string().optional(),
      leafIndex: z.number().optional(),
      root: z.string().optional(),
    })
    .optional(),
  txHash: z.string().optional(),
  failure: z.string().optional(),
  createdAt: z.string(),
  executedAt: z.string().optional(),
});
export const ordersView = z.object({ orders: z.array(orderView) });
export const orderOneView = z.object({ order: orderView });
export const pairsView = z.object({
  adapter: z.string(),
  pairs: z.array(
    z.object({
      pairId: z.string(),
      base: tokenView,
      quote: tokenView,
      feeBps: z.number(),
      pool: z.string(),
      reserves: z.object({ base: units, quote: units }),
    }),
  ),
});
export const addressesView = z.object({ addresses: z.array(z.object({ address: z.string(), orderId: z.string(), createdAt: z.string() })) });

/** What the swap hides and what it does not, said plainly. */
export function privacyOf(output: OutputKind): z.infer<typeof privacyView> {
  const common = [
    'The swap is one public chain A transaction: its amounts, the two tokens, the pool and the time are visible to anyone.',
    'Your wallet address is visible as the payer and as the sender of the input.',
  ];
  if (output === 'shielded') {
    return {
      output,
      hides: [
        "Who later receives the output: exactly the pool's denomination goes into the shielded pool in this same transaction and your commitment joins the pool's tree; a withdrawal proves with a zero-knowledge proof that it spends one of the pool's notes without saying which, so it is not linked to this swap or your wallet.",
        "The note's secret: only its commitment reaches the service, which therefore cannot tell which withdrawal is yours.",
      ],
      doesNotHide: [
        ...common,
        'That your wallet deposited into this pool at this time: the deposit is public and tied to your address, like a direct deposit.',
        'The surplus above the denomination: it is paid to your wallet address in this transaction.',
        "Your withdrawal hides among the pool's deposits of this denomination only: in a pool with few deposits, or withdrawing soon after, to an address tied to you, or with an unusual fee, links them again.",
      ],
    };
  }
  if (output === 'wallet') {
    return { output, hides: [], doesNotHide: [...common, 'The output is paid to your wallet address: the swap links your address to what you receive.'] };
  }
  return {
    output,
    hides: [
      "The output is paid to a fresh address made for this swap alone: it holds nothing else and is not reused, so what you later do with the output from that address is not tied to your wallet's other activity by address reuse.",
    ],
    doesNotHide: [
      ...common,
      'The fresh address appears in the same transaction as your wallet: anyone reading this transaction can link the two.',
      'A shielded-pool output (`output: {type: "shielded", pool, commitment}`) breaks that link; this one does not.',
    ],
  };
}

async function chainAWallet(userId: string, walletId: string): Promise<WalletRecord> {
  const w = await ownedWallet(userId, walletId);
  if (w.chain !== 'a') throw errors.invalidInput('walletId: swaps need a chain A wallet');
  return w;
}

export async function pairs() {
  // Jupiter routes any pair it can find: there is no pool list to show.
  if (swapConfig.adapter === 'jupiter') return { adapter: 'jupiter', pairs: [] };
  const list = await onChainA(() => localPairs());
  return {
    adapter: 'local',
    pairs: await Promise.all(
      list.map(async (p) => {
        const r = await onChainA(() => reserves(p, p.base, p.quote));
        const token = (t: typeof p.base) => ({ symbol: t.symbol, mint: t.mint.toBase58(), decimals: t.decimals });
        return {
          pairId: p.pairId,
          base: token(p.base),
          quote: token(p.quote),
          feeBps: p.feeBps,
          pool: p.pool.record.address,
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
  const { pair, tokenIn, tokenOut } = await onChainA(() => findPair(input.from, input.to));
  const amountIn = toUnits(input.amount, tokenIn.decimals);
  const r = await onChainA(() => reserves(pair, tokenIn, tokenOut));
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
    pool: pair.pool.record.address,
    reserveIn: r.reserveIn.toString(),
    reserveOut: r.reserveOut.toString(),
  };
  return quoteAnswer(record, tokenIn, tokenOut, route);
}

type TokenOf = { symbol: string; mint: PublicKey; decimals: number };

const kindOfOrder = (o: OrderRecord): OutputKind => (o.shielded ? 'shielded' : o.privateOutput ? 'one-time' : 'wallet');

function quoteAnswer(o: OrderRecord, tokenIn: TokenOf, tokenOut: TokenOf, route: z.infer<typeof quoteView>['route']): z.infer<typeof quoteView> {
  const token = (t: TokenOf) => ({ symbol: t.symbol, mint: t.mint.toBase58(), decimals: t.decimals });
  return {
    quoteId: o.id,
    walletId: o.walletId,
    from: token(tokenIn),
    to: token(tokenOut),
    amountIn: o.amountIn,
    amountOut: o.amountOut,
    minAmountOut: o.minAmountOut,
    priceImpactBps: o.priceImpactBps,
    fee: o.fee,
    feeBps: route.adapter === 'local' ? swapConfig.SWAP_FEE_BPS : 0,
    route,
    expiresAt: new Date(o.expiresAt).toISOString(),
    privacy: privacyOf(kindOfOrder(o)),
    ...(o.shielded
      ? {
          deposit: {
            pool: o.shielded.pool,
            commitment: o.shielded.commitment,
            denomination: o.shielded.denomination,
            surplus: (BigInt(o.amountOut) - BigInt(o.shielded.denomination)).toString(),
            minSurplus: (BigInt(o.minAmountOut) - BigInt(o.shielded.denomination)).toString(),
          },
        }
      : {}),
  };
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
        : onChainA(() =>
            executeLocal({
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
  await Promise.all([
    orders.markExecuted(order, {
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
    }),
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

const viewOrder = (o: OrderRecord): z.infer<typeof orderView> => ({
  id: o.id,
  status: o.status,
  walletId: o.walletId,
  from: o.from,
  to: o.to,
  amountIn: o.amountIn,
  amountOut: o.executedAmountOut ?? o.amountOut,
  minAmountOut: o.minAmountOut,
  fee: o.fee,
  priceImpactBps: o.priceImpactBps,
  output: kindOfOrder(o),
  ...(o.shielded
    ? {
        deposit: {
          pool: o.shielded.pool,
          commitment: o.shielded.commitment,
          denomination: o.shielded.denomination,
          ...(o.shielded.depositId ? { id: o.shielded.depositId } : {}),
          ...(o.shielded.leafIndex !== undefined ? { leafIndex: o.shielded.leafIndex, root: o.shielded.root! } : {}),
        },
      }
    : {}),
  ...(o.outputAddress ? { outputAddress: o.outputAddress } : {}),
  ...(o.txHash ? { txHash: o.txHash } : {}),
  ...(o.failure ? { failure: o.failure } : {}),
  createdAt: o.createdAt,
  ...(o.executedAt ? { executedAt: o.executedAt } : {}),
});

export async function listOrders(userId: string) {
  return { orders: (await orders.listOrders(userId)).map(viewOrder) };
}

export async function getOrder(userId: string, id: string) {
  const o = z.uuid().safeParse(id).success ? await orders.getOrder(userId, id) : undefined;
  if (!o) throw errors.notFound('order not found');
  return { order: viewOrder(await withDepositNow(o)) };
}

/** A deposit whose append was left to the retry job: the order shows where it is now. */
async function withDepositNow(o: OrderRecord): Promise<OrderRecord> {
  const s = o.shielded;
  if (!s?.depositId || s.leafIndex !== undefined) return o;
  const d = await getDeposit(o.userId, s.depositId);
  return d?.status === 'complete' && d.leafIndex !== undefined ? { ...o, shielded: { ...s, leafIndex: d.leafIndex, root: d.root! } } : o;
}

export async function listOneTimeAddresses(userId: string) {
  return { addresses: (await orders.listOneTimeAddresses(userId)).map((a) => ({ address: a.address, orderId: a.orderId, createdAt: a.createdAt })) };
}
