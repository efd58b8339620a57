import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { BN254_R as R } from '#lib/zk/bn254.ts';
import { combine, formatShare, MAX_SHARES, shamirCombine, shamirSplit, split } from '#lib/zk/shamir.ts';
import { expectAppError } from './helpers.ts';

const secretArb = fc.bigInt({ min: 0n, max: R - 1n });

/** Picks `k` distinct elements of `xs` in random order. */
const pick = <T>(xs: readonly T[], k: number, seed: number): T[] => {
  const a = [...xs];
  let s = seed >>> 0 || 1;
  for (let i = a.length - 1; i > 0; i--) {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    const j = s % (i + 1);
    [a[i], a[j]] = [a[j], a[i]];
  }
  return a.slice(0, k);
};

describe('Shamir over r: vectors', () => {
  // No published vector exists for this share format; these are worked by hand.
  it('f(x) = 42 + 7x: any two of "1:49", "2:56", "3:63" give 42', () => {
    expect(shamirCombine({ shares: ['1:49', '2:56'] })).toEqual({ secret: '42' });
    expect(shamirCombine({ shares: ['3:63', '1:49'] })).toEqual({ secret: '42' });
    expect(shamirCombine({ shares: ['1:49', '2:56', '3:63'] })).toEqual({ secret: '42' });
  });

  it('f(x) = 5 + (r − 1)x wraps mod r: "1:4", "2:3" give 5; leading zeros are the same share', () => {
    expect(combine(['1:4', '2:3'])).toBe(5n);
    expect(combine(['001:0004', '2:3'])).toBe(5n);
  });

  it('f(x) = 1 + x + x² (threshold 3): "1:3", "2:7", "3:13" give 1; "4:21" fits the same curve', () => {
    expect(combine(['1:3', '2:7', '3:13'])).toBe(1n);
    expect(combine(['4:21', '2:7', '3:13', '1:3'])).toBe(1n);
  });
});

describe('split then combine (properties)', () => {
  it('any threshold-sized subset (or more) recovers the secret', () => {
    fc.assert(
      fc.property(
        secretArb,
        fc.integer({ min: 2, max: 12 }).chain((t) => fc.tuple(fc.constant(t), fc.integer({ min: t, max: 20 }), fc.integer({ min: 0, max: 8 }), fc.integer())),
        (secret, [t, n, extra, seed]) => {
          const data = shamirSplit({ secret: secret.toString(), threshold: t, shares: n });
          expect(data.threshold).toBe(t);
          expect(data.total).toBe(n);
          expect(data.shares).toHaveLength(n);
          data.shares.forEach((s, i) => expect(s).toMatch(new RegExp(`^${i + 1}:[0-9]+$`)));
          const k = Math.min(n, t + extra);
          expect(shamirCombine({ shares: pick(data.shares, k, seed) })).toEqual({ secret: secret.toString() });
        },
      ),
      { numRuns: 150 },
    );
  });

  it('threshold − 1 shares do not give the secret (with overwhelming probability)', () => {
    fc.assert(
      fc.property(secretArb, fc.integer({ min: 3, max: 10 }), fc.integer(), (secret, t, seed) => {
        const shares = split(secret, t, t).map(formatShare);
        expect(combine(pick(shares, t - 1, seed))).not.toBe(secret);
      }),
      { numRuns: 50 },
    );
  });

  it('coefficients are fresh: two splits of one secret differ', () => {
    const a = shamirSplit({ secret: '123', threshold: 2, shares: 3 });
    const b = shamirSplit({ secret: '123', threshold: 2, shares: 3 });
    expect(a.shares).not.toEqual(b.shares);
  });

  it('the extremes: 0 and r − 1 as secrets, 255 of 255 shares', () => {
    for (const secret of [0n, R - 1n]) expect(combine(split(secret, 2, 2).map(formatShare))).toBe(secret);
    const all = split(R - 2n, MAX_SHARES, MAX_SHARES).map(formatShare);
    expect(all).toHaveLength(255);
    expect(all[254]).toMatch(/^255:/);
    expect(combine(all)).toBe(R - 2n);
  });
});

describe('errors', () => {
  it('combine: malformed shares → INVALID_SHARES naming the share', async () => {
    for (const bad of ['1-5', 'a:b', '1:', ':5', '1:5:6', ' 1:5', '1:0x5', '-1:5', '1:-5', '']) {
      await expectAppError(() => combine(['2:7', bad]), 'INVALID_SHARES', 'shares.1: a share must be a string "index:value"');
    }
    for (const bad of [5, null, { index: 1, value: '5' }, ['1', '5']]) {
      await expectAppError(() => combine([bad, '2:7']), 'INVALID_SHARES', 'shares.0:');
    }
  });

  it('combine: index 0, index above 255, repeated index → INVALID_SHARES', async () => {
    await expectAppError(() => combine(['0:42', '1:49']), 'INVALID_SHARES', 'shares.0: share index 0 is not allowed');
    await expectAppError(() => combine(['000:42', '1:49']), 'INVALID_SHARES', 'index 0');
    await expectAppError(() => combine(['1:49', '256:1']), 'INVALID_SHARES', 'shares.1: share index must be from 1 to 255');
    await expectAppError(() => combine(['1:49', '2:56', '01:50']), 'INVALID_SHARES', 'shares.2: repeated share index 1');
  });

  it('combine: fewer than two or more than 255 shares → INVALID_SHARES', async () => {
    await expectAppError(() => combine([]), 'INVALID_SHARES', 'at least 2 shares');
    await expectAppError(() => combine(['1:49']), 'INVALID_SHARES', 'at least 2 shares');
    await expectAppError(() => combine(Array.from({ length: 256 }, (_, i) => `${i + 1}:1`)), 'INVALID_SHARES', 'at most 255');
  });

  it('combine: a share value ≥ r → FIELD_OVERFLOW (never reduced)', async () => {
    await expectAppError(() => combine(['1:49', `2:${R + 56n}`]), 'FIELD_OVERFLOW', 'shares.1 value must be less than the BN254 prime');
  });

  it('split: secret ≥ r → FIELD_OVERFLOW; bad threshold / count → INVALID_INPUT', async () => {
    await expectAppError(() => shamirSplit({ secret: R.toString(), threshold: 2, shares: 3 }), 'FIELD_OVERFLOW', 'secret must be less');
    await expectAppError(() => shamirSplit({ secret: 'x', threshold: 2, shares: 3 }), 'INVALID_INPUT', 'secret: must be a decimal string');
    await expectAppError(() => shamirSplit({ secret: '1', threshold: 1, shares: 3 }), 'INVALID_INPUT', 'threshold: must be an integer from 2 to 255');
    await expectAppError(() => shamirSplit({ secret: '1', threshold: 2.5, shares: 3 }), 'INVALID_INPUT', 'threshold:');
    await expectAppError(() => shamirSplit({ secret: '1', threshold: 3, shares: 2 }), 'INVALID_INPUT', 'shares: must be an integer from threshold (3) to 255');
    await expectAppError(() => shamirSplit({ secret: '1', threshold: 2, shares: 256 }), 'INVALID_INPUT', 'shares:');
  });
});
