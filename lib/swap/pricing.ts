import { errors } from '#lib/errors.ts';

/**
 * The constant-product rule (x · y = k), in bigint smallest units. The fee is taken from the input
 * and rounded up, the output rounded down: every rounding is in the pool's favour, so k never
 * decreases. No floating point anywhere.
 */
export const BPS = 10_000n;

export interface Reserves {
  /** The pool's balance of the token going in. */
  reserveIn: bigint;
  /** The pool's balance of the token coming out. */
  reserveOut: bigint;
}

export interface Priced {
  amountIn: bigint;
  /** The part of `amountIn` the pool keeps as its fee: ceil(amountIn · feeBps / 10000). */
  fee: bigint;
  /** floor(reserveOut · (amountIn − fee) / (reserveIn + amountIn − fee)). */
  amountOut: bigint;
  /** How much worse than the spot price (after the fee) the output is, in basis points (rounded up). */
  priceImpactBps: number;
}

export class PricingError extends Error {
  constructor(readonly reason: 'zero-output' | 'empty-pool' | 'too-large') {
    super(reason);
    this.name = 'PricingError';
  }
}

const ceilDiv = (a: bigint, b: bigint) => (a + b - 1n) / b;

/** The pool's answer to `amountIn`; PricingError when the pool cannot give a positive output. */
export function price({ reserveIn, reserveOut }: Reserves, amountIn: bigint, feeBps: bigint): Priced {
  if (amountIn <= 0n) throw new RangeError('amountIn must be positive');
  if (reserveIn <= 0n || reserveOut <= 0n) throw new PricingError('empty-pool');
  // More than the pool's whole input reserve in one swap would take over half its output side.
  if (amountIn > reserveIn) throw new PricingError('too-large');
  const fee = ceilDiv(amountIn * feeBps, BPS);
  const net = amountIn - fee;
  const amountOut = (reserveOut * net) / (reserveIn + net);
  if (amountOut <= 0n) throw new PricingError('zero-output');
  const ideal = (reserveOut * net) / reserveIn;
  const priceImpactBps = ideal === 0n ? 0 : Number(ceilDiv((ideal - amountOut) * BPS, ideal));
  return { amountIn, fee, amountOut, priceImpactBps };
}

/** The pool's price for `amountIn`, or 422 INSUFFICIENT_LIQUIDITY naming why. */
export function priceOrRefuse(r: Reserves, amountIn: bigint, feeBps: number): Priced {
  try {
    return price(r, amountIn, BigInt(feeBps));
  } catch (e) {
    if (e instanceof PricingError) {
      throw errors.insufficientLiquidity(
        e.reason === 'too-large'
          ? "the amount is larger than the pool's reserve of that token"
          : e.reason === 'empty-pool'
            ? 'the pool is empty'
            : 'the amount is too small to buy anything from this pool',
      );
    }
    throw e;
  }
}

/** The least output the caller accepts: amountOut · (10000 − slippageBps) / 10000, rounded up. */
export const minOut = (amountOut: bigint, slippageBps: number): bigint => ceilDiv(amountOut * (BPS - BigInt(slippageBps)), BPS);

/** k = x · y, the invariant. */
export const invariant = (a: bigint, b: bigint): bigint => a * b;

/**
 * The least `amountIn` whose output, after `slippageBps`, is still at least `wantOut`: the inverse
 * of `price` and `minOut`, for the shielded-output refusal's hint. Undefined when the pool cannot
 * give that much. Each step is the exact inverse of its rounding (so the answer is the least such
 * input); `price` itself confirms it, walking up a few units should that ever disagree.
 */
export function inputForMinOut(r: Reserves, wantOut: bigint, feeBps: bigint, slippageBps: number): bigint | undefined {
  // minOut(out) = ceil(out · slip / 10000) >= wantOut  ⇔  out · slip > (wantOut − 1) · 10000
  const slip = BPS - BigInt(slippageBps);
  if (slip <= 0n || wantOut <= 0n) return undefined;
  const out = ((wantOut - 1n) * BPS) / slip + 1n;
  if (out >= r.reserveOut || r.reserveIn <= 0n) return undefined;
  const net = ceilDiv(r.reserveIn * out, r.reserveOut - out);
  let amountIn = feeBps >= BPS ? undefined : ceilDiv(net * BPS, BPS - feeBps);
  for (let i = 0; amountIn !== undefined && i < 8; i++, amountIn++) {
    if (amountIn > r.reserveIn) return undefined;
    try {
      if (minOut(price(r, amountIn, feeBps).amountOut, slippageBps) >= wantOut) return amountIn;
    } catch (e) {
      if (!(e instanceof PricingError)) throw e;
    }
  }
  return undefined;
}
