import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { P, add, sub, mul, neg, inv, pow, rootOfUnity, batchInv, readFelt, writeFelt, feltsToBytes, randomFelt } from '../../../lib/auth/stark/field.ts';
import { type Fp2, eAdd, eSub, eMul, eInv, eNeg, ePow, eBatchInv, eEq, NON_RESIDUE, readExt } from '../../../lib/auth/stark/ext.ts';

const felt = fc.bigInt({ min: 0n, max: P - 1n });
const nonzero = fc.bigInt({ min: 1n, max: P - 1n });
const ext = fc.tuple(felt, felt) as fc.Arbitrary<Fp2>;
const extNonzero = ext.filter((e) => e[0] !== 0n || e[1] !== 0n);

describe('Goldilocks field', () => {
  it('p is 2^64 - 2^32 + 1', () => expect(P).toBe(2n ** 64n - 2n ** 32n + 1n));
  it('ring laws', () => {
    fc.assert(
      fc.property(felt, felt, felt, (a, b, c) => {
        expect(add(a, b)).toBe(add(b, a));
        expect(mul(a, b)).toBe(mul(b, a));
        expect(mul(a, add(b, c))).toBe(add(mul(a, b), mul(a, c)));
        expect(add(add(a, b), c)).toBe(add(a, add(b, c)));
        expect(mul(mul(a, b), c)).toBe(mul(a, mul(b, c)));
        expect(sub(add(a, b), b)).toBe(a);
        expect(add(a, neg(a))).toBe(0n);
        for (const v of [add(a, b), sub(a, b), mul(a, b), neg(a)]) expect(v >= 0n && v < P).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
  it('inverses and Fermat', () => {
    fc.assert(
      fc.property(nonzero, (a) => {
        expect(mul(a, inv(a))).toBe(1n);
        expect(pow(a, P - 1n)).toBe(1n);
      }),
      { numRuns: 100 },
    );
    expect(() => inv(0n)).toThrow();
  });
  it('batch inversion matches single inversion', () => {
    const xs = Array.from({ length: 50 }, () => randomFelt() || 1n);
    expect(batchInv(xs)).toEqual(xs.map(inv));
  });
  it('roots of unity have exact power-of-two order', () => {
    for (const n of [2, 8, 1024, 2 ** 32]) {
      const w = rootOfUnity(n);
      expect(pow(w, BigInt(n))).toBe(1n);
      expect(pow(w, BigInt(n / 2))).toBe(P - 1n);
    }
    expect(() => rootOfUnity(3)).toThrow();
    expect(() => rootOfUnity(2 ** 33)).toThrow();
  });
  it('encoding round-trips and rejects non-canonical values', () => {
    fc.assert(
      fc.property(felt, (a) => {
        const b = new Uint8Array(8);
        writeFelt(b, 0, a);
        expect(readFelt(b, 0)).toBe(a);
        expect(Buffer.from(b).readBigUInt64LE(0)).toBe(a);
      }),
    );
    const over = new Uint8Array(8);
    for (const v of [P, P + 1n, 2n ** 64n - 1n]) {
      Buffer.from(over.buffer).writeBigUInt64LE(v);
      expect(readFelt(over, 0)).toBeNull();
    }
    expect(readExt(new Uint8Array([...feltsToBytes([1n]), ...over]), 0)).toBeNull();
  });
});

describe('quadratic extension F_p[u]/(u^2 - 7)', () => {
  it('7 is a quadratic non-residue (the extension is a field)', () => {
    expect(pow(NON_RESIDUE, (P - 1n) / 2n)).toBe(P - 1n);
  });
  it('field laws', () => {
    fc.assert(
      fc.property(ext, ext, ext, (a, b, c) => {
        expect(eMul(a, b)).toEqual(eMul(b, a));
        expect(eMul(eMul(a, b), c)).toEqual(eMul(a, eMul(b, c)));
        expect(eMul(a, eAdd(b, c))).toEqual(eAdd(eMul(a, b), eMul(a, c)));
        expect(eSub(eAdd(a, b), b)).toEqual(a);
        expect(eAdd(a, eNeg(a))).toEqual([0n, 0n]);
      }),
      { numRuns: 200 },
    );
  });
  it('inverses, Frobenius order and batch inversion', () => {
    fc.assert(
      fc.property(extNonzero, (a) => {
        expect(eMul(a, eInv(a))).toEqual([1n, 0n]);
      }),
      { numRuns: 100 },
    );
    const u: Fp2 = [0n, 1n];
    expect(eMul(u, u)).toEqual([7n, 0n]);
    // The multiplicative group has order p^2 - 1.
    expect(ePow([3n, 5n], P * P - 1n)).toEqual([1n, 0n]);
    const xs: Fp2[] = Array.from({ length: 20 }, (_, i) => [BigInt(i + 1), BigInt(3 * i)] as Fp2);
    const bi = eBatchInv(xs);
    xs.forEach((x, i) => expect(eEq(bi[i], eInv(x))).toBe(true));
  });
});
