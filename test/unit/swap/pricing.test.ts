import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { inputForMinOut, invariant, minOut, price, PricingError } from '#lib/swap/pricing.ts';

describe('constant-product pricing', () => {
  it('a worked example: 1000 SOL / 150000 sUSD, 2.5 SOL in at 30 bps', () => {
    const p = price({ reserveIn: 1_000_000_000_000n, reserveOut: 150_000_000_000n }, 2_500_000_000n, 30n);
    expect(p.fee).toBe(7_500_000n); // 2.5 SOL × 0.003
    // 150000e6 × 2.4925e9 / (1000e9 + 2.4925e9) = 372,945,433.2… → rounded down
    expect(p.amountOut).toBe(372_945_433n);
    expect(p.priceImpactBps).toBe(25);
  });

  it('the fee rounds up and the output down: k never decreases, for any reserves and amount', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 1n, max: 1n << 64n }),
        fc.bigInt({ min: 1n, max: 1n << 64n }),
        fc.bigInt({ min: 1n, max: 1n << 64n }),
        fc.integer({ min: 0, max: 1000 }),
        (rIn, rOut, amount, feeBps) => {
          fc.pre(amount <= rIn);
          let p;
          try {
            p = price({ reserveIn: rIn, reserveOut: rOut }, amount, BigInt(feeBps));
          } catch (e) {
            expect(e).toBeInstanceOf(PricingError);
            return;
          }
          expect(p.fee * 10_000n).toBeGreaterThanOrEqual(amount * BigInt(feeBps));
          expect((p.fee - 1n) * 10_000n).toBeLessThan(amount * BigInt(feeBps));
          expect(p.amountOut).toBeGreaterThan(0n);
          expect(p.amountOut).toBeLessThan(rOut);
          expect(invariant(rIn + amount, rOut - p.amountOut)).toBeGreaterThanOrEqual(invariant(rIn, rOut));
          // one more unit out would break the invariant of the net input: the output is the largest allowed
          const net = amount - p.fee;
          expect((rIn + net) * (rOut - p.amountOut - 1n)).toBeLessThan(rIn * rOut);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('refuses what a pool cannot price', () => {
    expect(() => price({ reserveIn: 100n, reserveOut: 100n }, 101n, 30n)).toThrow(PricingError);
    expect(() => price({ reserveIn: 10n ** 12n, reserveOut: 10n }, 1n, 30n)).toThrow(PricingError);
    expect(() => price({ reserveIn: 0n, reserveOut: 10n }, 1n, 30n)).toThrow(PricingError);
  });

  it('the minimum output rounds up (never promises less than the slippage allows)', () => {
    expect(minOut(10_001n, 100)).toBe(9_901n); // 10001 × 0.99 = 9900.99 → 9901
    expect(minOut(10_000n, 0)).toBe(10_000n);
  });
});

describe('the input that reaches a minimum output (the shielded-output hint)', () => {
  it('a worked example: 1 SOL after 1 % slippage from 1000 SOL / 150000 sUSD costs 151.974… sUSD', () => {
    const r = { reserveIn: 150_000_000_000n, reserveOut: 1_000_000_000_000n };
    const a = inputForMinOut(r, 1_000_000_000n, 30n, 100)!;
    expect(minOut(price(r, a, 30n).amountOut, 100)).toBeGreaterThanOrEqual(1_000_000_000n);
    expect(minOut(price(r, a - 1n, 30n).amountOut, 100)).toBeLessThan(1_000_000_000n);
    expect(a).toBeGreaterThan(151_000_000n);
    expect(a).toBeLessThan(153_000_000n);
  });

  it('is the least input whose minimum output reaches the target, for any reserves, fee and slippage', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 1_000n, max: 1n << 60n }),
        fc.bigInt({ min: 1_000n, max: 1n << 60n }),
        fc.bigInt({ min: 1n, max: 1n << 40n }),
        fc.integer({ min: 0, max: 1000 }),
        fc.integer({ min: 0, max: 5000 }),
        (rIn, rOut, want, feeBps, slippage) => {
          fc.pre(want < rOut / 3n);
          const r = { reserveIn: rIn, reserveOut: rOut };
          const a = inputForMinOut(r, want, BigInt(feeBps), slippage);
          if (a === undefined) {
            // only when even the whole input reserve cannot reach it
            let best = 0n;
            try {
              best = minOut(price(r, rIn, BigInt(feeBps)).amountOut, slippage);
            } catch (e) {
              expect(e).toBeInstanceOf(PricingError);
            }
            expect(best).toBeLessThan(want);
            return;
          }
          expect(minOut(price(r, a, BigInt(feeBps)).amountOut, slippage)).toBeGreaterThanOrEqual(want);
          if (a > 1n) {
            let below = 0n;
            try {
              below = minOut(price(r, a - 1n, BigInt(feeBps)).amountOut, slippage);
            } catch (e) {
              expect(e).toBeInstanceOf(PricingError);
            }
            expect(below).toBeLessThan(want);
          }
        },
      ),
      { numRuns: 2000 },
    );
  });
});
