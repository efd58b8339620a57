import { beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import * as F from '#lib/zk/field.ts';
import { getBabyJub } from '#lib/zk/primitives.ts';
import { expectAppError } from './helpers.ts';

const R = F.R;
const el = () => fc.bigInt({ min: 0n, max: R - 1n });
const nonZero = () => fc.bigInt({ min: 1n, max: R - 1n });

describe('BN254 scalar field constants', () => {
  it('r is the BN254 group order of EIP-2494 §Definitions (and EIP-196)', () => {
    // Source: EIP-2494 "Definitions": r = 21888242871839275222246405745257275088548364400416034343698204186575808495617
    expect(R).toBe(21888242871839275222246405745257275088548364400416034343698204186575808495617n);
    expect(R.toString(16)).toBe('30644e72e131a029b85045b68181585d2833e84879b9709143e1f593f0000001');
  });

  it('r − 1 = 2^28 · t with t odd; 5 is a non-residue and 5^t the 2^28-th root of unity', () => {
    // Source: circomlib circuits/pointbits.circom, function sqrt (m = 28, c = 1910…1904, t = 8154…0111),
    // the same constants as libff alt_bn128_init.cpp (alt_bn128_Fr::s = 28, nqr = 5, nqr_to_t) and
    // arkworks-rs/algebra curves/bn254/src/fields/fr.rs (generator = 5).
    const t = 81540058820840996586704275553141814055101440848469862132140264610111n;
    expect((R - 1n) >> F.TWO_ADICITY).toBe(t);
    expect(t << 28n).toBe(R - 1n);
    expect(t & 1n).toBe(1n);
    expect(F.NON_RESIDUE).toBe(5n);
    expect(F.legendre(5n)).toBe(R - 1n);
    const root = F.pow(5n, t);
    expect(root).toBe(19103219067921713944291392827692070036145651957329286315305642004821462161904n);
    expect(F.pow(root, 1n << 27n)).toBe(R - 1n); // primitive: order exactly 2^28
    expect(F.pow(root, 1n << 28n)).toBe(1n);
  });
});

describe('field operations: fixed vectors', () => {
  it('wrap around r', () => {
    expect(F.add(R - 1n, 1n)).toBe(0n);
    expect(F.add(R - 1n, R - 1n)).toBe(R - 2n);
    expect(F.sub(0n, 1n)).toBe(R - 1n);
    expect(F.mul(R - 1n, R - 1n)).toBe(1n);
    expect(F.neg(0n)).toBe(0n);
  });

  it('inverse and division', () => {
    expect(F.inv(1n)).toBe(1n);
    expect(F.inv(2n)).toBe((R + 1n) / 2n);
    expect(F.inv(R - 1n)).toBe(R - 1n);
    expect(F.div(1n, 2n)).toBe((R + 1n) / 2n);
    expect(F.div(0n, 7n)).toBe(0n);
  });

  it('pow: 0^0 = 1, Fermat, exponents above r are exact (not reduced mod r)', () => {
    expect(F.pow(0n, 0n)).toBe(1n);
    expect(F.pow(0n, 5n)).toBe(0n);
    expect(F.pow(2n, 10n)).toBe(1024n);
    expect(F.pow(3n, R - 1n)).toBe(1n);
    expect(F.pow(3n, R)).toBe(3n);
    // x^(2^256 − 1) = x^((2^256 − 1) mod (r − 1)) for x ≠ 0
    const e = 2n ** 256n - 1n;
    expect(F.pow(7n, e)).toBe(F.pow(7n, e % (R - 1n)));
  });

  it('sqrt: 0, 1, 4, the smaller root, −1 (a residue since 4 | r − 1)', () => {
    expect(F.sqrt(0n)).toBe(0n);
    expect(F.sqrt(1n)).toBe(1n);
    expect(F.sqrt(4n)).toBe(2n);
    expect(F.sqrt(F.mul(R - 3n, R - 3n))).toBe(3n);
    const i = F.sqrt(R - 1n);
    expect(F.mul(i, i)).toBe(R - 1n);
    expect(i <= (R - 1n) / 2n).toBe(true);
  });

  it('errors: zero divisor, zero inverse, non-residue → INVALID_INPUT', async () => {
    await expectAppError(() => F.div(5n, 0n), 'INVALID_INPUT', 'b: division by zero');
    await expectAppError(() => F.inv(0n), 'INVALID_INPUT', 'a: zero has no inverse');
    await expectAppError(() => F.sqrt(5n), 'INVALID_INPUT', 'a: not a quadratic residue');
  });
});

describe("field operations agree with ffjavascript (circomlibjs's wasm field) on random inputs", () => {
  type Wasm = {
    e(v: bigint): Uint8Array;
    toObject(a: Uint8Array): bigint;
    add(a: Uint8Array, b: Uint8Array): Uint8Array;
    sub(a: Uint8Array, b: Uint8Array): Uint8Array;
    mul(a: Uint8Array, b: Uint8Array): Uint8Array;
    div(a: Uint8Array, b: Uint8Array): Uint8Array;
    inv(a: Uint8Array): Uint8Array;
    exp(a: Uint8Array, e: bigint): Uint8Array;
    sqrt(a: Uint8Array): Uint8Array | null;
  };
  let W: Wasm;
  beforeAll(async () => {
    W = (await getBabyJub()).F as unknown as Wasm;
  });
  const o = (x: Uint8Array) => W.toObject(x);

  it('add, sub, mul, div, inv, pow', () => {
    fc.assert(
      fc.property(el(), nonZero(), fc.bigInt({ min: 0n, max: 2n ** 256n - 1n }), (a, b, e) => {
        expect(F.add(a, b)).toBe(o(W.add(W.e(a), W.e(b))));
        expect(F.sub(a, b)).toBe(o(W.sub(W.e(a), W.e(b))));
        expect(F.mul(a, b)).toBe(o(W.mul(W.e(a), W.e(b))));
        expect(F.div(a, b)).toBe(o(W.div(W.e(a), W.e(b))));
        expect(F.inv(b)).toBe(o(W.inv(W.e(b))));
        expect(F.pow(a, e)).toBe(o(W.exp(W.e(a), e)));
      }),
      { numRuns: 200 },
    );
  });

  it('sqrt finds a root exactly when ffjavascript does, the same up to sign', () => {
    fc.assert(
      fc.property(el(), (a) => {
        // ffjavascript's sqrt never returns on a non-residue: ask its Euler criterion first.
        const residue = a === 0n || o(W.exp(W.e(a), (R - 1n) / 2n)) === 1n;
        const theirs = residue ? W.sqrt(W.e(a)) : null;
        if (theirs === null) {
          expect(() => F.sqrt(a)).toThrow(/not a quadratic residue/);
        } else {
          const t = o(theirs);
          expect(F.sqrt(a)).toBe(t <= R - t ? t : R - t);
        }
      }),
      { numRuns: 200 },
    );
  });
});

describe('field laws (properties)', () => {
  it('commutative, associative, distributive, identities, inverses', () => {
    fc.assert(
      fc.property(el(), el(), el(), (a, b, c) => {
        expect(F.add(a, b)).toBe(F.add(b, a));
        expect(F.mul(a, b)).toBe(F.mul(b, a));
        expect(F.add(F.add(a, b), c)).toBe(F.add(a, F.add(b, c)));
        expect(F.mul(F.mul(a, b), c)).toBe(F.mul(a, F.mul(b, c)));
        expect(F.mul(a, F.add(b, c))).toBe(F.add(F.mul(a, b), F.mul(a, c)));
        expect(F.add(a, 0n)).toBe(a);
        expect(F.mul(a, 1n)).toBe(a);
        expect(F.add(a, F.neg(a))).toBe(0n);
        expect(F.sub(F.add(a, b), b)).toBe(a);
      }),
      { numRuns: 300 },
    );
  });

  it('a · a⁻¹ = 1 and (a / b) · b = a', () => {
    fc.assert(
      fc.property(nonZero(), el(), (b, a) => {
        expect(F.mul(b, F.inv(b))).toBe(1n);
        expect(F.mul(F.div(a, b), b)).toBe(a);
      }),
      { numRuns: 300 },
    );
  });

  it('pow: a^(m+n) = a^m · a^n, a^(r−1) = 1 for a ≠ 0', () => {
    fc.assert(
      fc.property(nonZero(), fc.bigInt({ min: 0n, max: 2n ** 200n }), fc.bigInt({ min: 0n, max: 2n ** 200n }), (a, m, n) => {
        expect(F.pow(a, m + n)).toBe(F.mul(F.pow(a, m), F.pow(a, n)));
        expect(F.pow(a, R - 1n)).toBe(1n);
      }),
      { numRuns: 100 },
    );
  });

  it('sqrt(a²) is the smaller of ±a; 5·a² is never a square', () => {
    fc.assert(
      fc.property(nonZero(), (a) => {
        const root = F.sqrt(F.mul(a, a));
        expect(root).toBe(a <= R - a ? a : R - a);
        expect(() => F.sqrt(F.mul(5n, F.mul(a, a)))).toThrow(/not a quadratic residue/);
      }),
      { numRuns: 100 },
    );
  });
});

describe('random', () => {
  it('stays in [0, r), does not repeat, and looks uniform', () => {
    const n = 2000;
    const xs = Array.from({ length: n }, () => F.random());
    for (const x of xs) expect(x >= 0n && x < R).toBe(true);
    expect(new Set(xs).size).toBe(n);
    // Mean of n uniform draws: r/2 ± a few σ, σ = r/sqrt(12n) ≈ 0.0065 r.
    const mean = xs.reduce((s, x) => s + x, 0n) / BigInt(n);
    const dev = Number(mean - R / 2n) / Number(R);
    expect(Math.abs(dev)).toBeLessThan(0.035);
    // Both halves of the range are hit.
    expect(xs.filter((x) => x > R / 2n).length).toBeGreaterThan(n * 0.4);
  });
});
