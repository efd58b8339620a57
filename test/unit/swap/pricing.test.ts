import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { invariant, minOut, price, PricingError } from '#lib/swap/pricing.ts';

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
      fc.property(fc.bigInt({ min: 1n, max: 1n << 64n }), fc.bigInt({ min: 1n, max: 1n << 64n }), fc.bigInt({ min: 1n, max: 1n << 64n }), fc.integer({ min: 0, max: 1000 }), (rIn, rOut, amount, feeBps) => {
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
      }),
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
