import { randomUUID } from 'node:crypto';
import { PublicKey } from '@solana/web3.js';
import { clock } from '#lib/clock.ts';
import type { DepositRecord, PoolRecord } from '#lib/data/shielded-pools.ts';
import type { OrderRecord } from '#lib/data/swap-orders.ts';
import { errors } from '#lib/errors.ts';
import { dropDeposit, freshCommitment, reserveDeposit } from '#lib/transfer/deposits.ts';
import { listPools } from '#lib/transfer/pool-views.ts';
import { poolOrThrow } from '#lib/transfer/pools.ts';
import { formatUnits } from '#lib/wallets/amounts.ts';
import { WSOL } from './chain.ts';
import type { ShieldedLeg, Token } from './venue-port.ts';
import { inputForMinOut, type Reserves } from './pricing.ts';

/**
 * A swap whose output goes straight into a shielded-pool deposit (docs/swap.md, shielded output).
 *
 * Pricing: the quote stays exact-input (`amount` is what goes in) and is accepted only when its
 * minimum output (after the slippage the caller allows) is at least the pool's denomination, so
 * the deposit can always be paid if the swap executes at all. Exactly the denomination goes into
 * the pool; the surplus (the output above it, at least zero) stays in the user's wallet, in the
 * same transaction. A mismatched amount is refused (400 DENOMINATION_MISMATCH) with the
 * denominations of the output token and the input that reaches the chosen one at the current
 * reserves and slippage.
 *
 * Execution: ONE chain A transaction holds both swap legs and the deposit (the pools here take a
 * plain transfer to the pool account, so nothing forces two). Before it is sent, the deposit is
 * recorded pending with the transaction's signature and its commitment reserved — the very record
 * a direct deposit writes (lib/transfer/deposits.ts) — so the transfer retry job finishes it after
 * a crash: landed → appended to the tree; not landed → the reservation is dropped. The signed bytes
 * are not kept for a resend (a direct deposit keeps them): sent again later, the swap legs would
 * move amounts priced against reserves that may have changed since; the local chain takes or
 * refuses a transaction at once, so one not there by the retry job's time never will be.
 */
export interface ShieldedChoice {
  type: 'shielded';
  pool: string;
  commitment: string;
}

const poolToken = (p: { mint?: string | undefined }) => p.mint ?? WSOL.toBase58();

/** The pool, checked against the output token and the quote's minimum, and the canonical commitment. */
export async function checkShieldedQuote(
  choice: ShieldedChoice,
  q: { tokenIn: Token; tokenOut: Token; reserves: Reserves; feeBps: number; slippageBps: number; minAmountOut: bigint },
): Promise<{ pool: PoolRecord; commitment: string }> {
  const pool = await poolOrThrow(choice.pool);
  const out = q.tokenOut.mint.toBase58();
  const options = (await listPools()).pools.filter((p) => poolToken(p) === out);
  const named = options.length ? options.map((p) => `${p.id} (${p.formatted} ${q.tokenOut.symbol})`).join(', ') : 'none';
  if (poolToken(pool) !== out) {
    throw errors.denominationMismatch(
      `output.pool: pool ${pool.id} holds ${pool.token}, the swap pays ${q.tokenOut.symbol}; the pools of ${q.tokenOut.symbol}: ${named}`,
    );
  }
  const denomination = BigInt(pool.denomination);
  if (q.minAmountOut < denomination) {
    const need = inputForMinOut(q.reserves, denomination, BigInt(q.feeBps), q.slippageBps);
    const hint =
      need === undefined
        ? 'the pool cannot give that much'
        : `at the current reserves and this slippage, at least ${formatUnits(need, q.tokenIn.decimals)} ${q.tokenIn.symbol} in reaches it`;
    throw errors.denominationMismatch(
      `amount: the swap gives at least ${formatUnits(q.minAmountOut, q.tokenOut.decimals)} ${q.tokenOut.symbol} after slippage, below pool ${pool.id}'s denomination of ${formatUnits(denomination, q.tokenOut.decimals)}; ${hint} (the surplus above the denomination stays in your wallet); the pools of ${q.tokenOut.symbol}: ${named}`,
    );
  }
  return { pool, commitment: await freshCommitment(choice.commitment) };
}

/** The deposit leg of an order's execution, with its journal (see above). */
export async function shieldedLeg(o: OrderRecord): Promise<{ leg: ShieldedLeg; pool: PoolRecord; deposit: () => DepositRecord }> {
  const s = o.shielded!;
  const pool = await poolOrThrow(s.pool);
  let record: DepositRecord | undefined;
  const leg: ShieldedLeg = {
    to: new PublicKey(pool.address),
    units: BigInt(pool.denomination),
    async record(signature) {
      record = {
        id: randomUUID(),
        userId: o.userId,
        poolId: pool.id,
        walletId: o.walletId,
        commitment: s.commitment,
        status: 'pending',
        txHash: signature,
        createdAt: clock.now().toISOString(),
      };
      await reserveDeposit(pool, record);
    },
    async refused() {
      if (record) await dropDeposit(pool, record);
    },
  };
  return {
    leg,
    pool,
    deposit: () => {
      if (!record) throw new Error('the swap was sent without its deposit record');
      return record;
    },
  };
}
