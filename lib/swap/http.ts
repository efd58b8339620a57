import * as z from 'zod';
import type { OrderRecord } from '#lib/data/swap-orders.ts';
import { amountInput } from '#lib/wallets/amounts.ts';
import { swapConfig } from './config.ts';
import type { Token } from './venue-port.ts';

/**
 * The swap routes' edge: the zod schemas of the requests and of the answers, and the views that
 * turn an order into its answer (the service is swap.ts; nothing here reads a table).
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
export type OutputKind = 'wallet' | 'one-time' | 'shielded';
export const kindOf = (o: z.infer<typeof quoteInput>['output']): OutputKind => (typeof o === 'string' ? o : o.type);
export const executeInput = z.object({ quoteId: str('string').min(1).max(64) });
export const orderParams = z.object({ id: z.string().min(1).max(64) });

const units = z.string().regex(/^\d+$/);
const tokenView = z.object({ symbol: z.string(), mint: z.string(), decimals: z.number() });
export const privacyView = z.object({ output: z.enum(['wallet', 'one-time', 'shielded']), hides: z.array(z.string()), doesNotHide: z.array(z.string()) });
/** The shielded deposit a swap pays: quoted (pool, denomination, surplus to the wallet), then executed (its deposit). */
const quoteDepositView = z.object({ pool: z.string(), commitment: z.string(), denomination: units, surplus: units, minSurplus: units });
export const depositDoneView = z.object({
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

/** A token as the answers show it (its mint in base58). */
export const viewToken = (t: Token): z.infer<typeof tokenView> => ({ symbol: t.symbol, mint: t.mint.toBase58(), decimals: t.decimals });

const kindOfOrder = (o: OrderRecord): OutputKind => (o.shielded ? 'shielded' : o.privateOutput ? 'one-time' : 'wallet');

export function quoteAnswer(o: OrderRecord, tokenIn: Token, tokenOut: Token, route: z.infer<typeof quoteView>['route']): z.infer<typeof quoteView> {
  return {
    quoteId: o.id,
    walletId: o.walletId,
    from: viewToken(tokenIn),
    to: viewToken(tokenOut),
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
            ...depositOf(o.shielded),
            surplus: (BigInt(o.amountOut) - BigInt(o.shielded.denomination)).toString(),
            minSurplus: (BigInt(o.minAmountOut) - BigInt(o.shielded.denomination)).toString(),
          },
        }
      : {}),
  };
}

/** The shielded deposit an order pays: its pool, the client's commitment, the pool's denomination. */
const depositOf = ({ pool, commitment, denomination }: NonNullable<OrderRecord['shielded']>) => ({ pool, commitment, denomination });

export const viewOrder = (o: OrderRecord): z.infer<typeof orderView> => ({
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
          ...depositOf(o.shielded),
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
