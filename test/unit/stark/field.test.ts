import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { P, add, sub, mul, neg, inv, pow, rootOfUnity, batchInv, readFelt, writeFelt, feltsToBytes, randomFelt } from '../../../lib/stark/field.ts';
import { type Fp3, eAdd, eSub, eMul, eInv, eNeg, ePow, eBatchInv, eEq, readExt } from '../../../lib/stark/ext.ts';

const felt = fc.bigInt({ min: 0n, max: P - 1n });
const nonzero = fc.bigInt({ min: 1n, max: P - 1n });
const ext = fc.tuple(felt, felt, felt) as fc.Arbitrary<Fp3>;
const extNonzero = ext.filter((e) => e[0] !== 0n || e[1] !== 0n || e[2] !== 0n);

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
  it('x^3 - x - 1 is irreducible over Goldilocks (Rabin: no root, i.e. gcd(x^p - x, f) = 1; and x^(p^3) = x mod f)', () => {
    // Arithmetic in F_p[x]/(f) (eMul reduces by x^3 = x + 1), valid whether or not f is irreducible.
    const X: Fp3 = [0n, 1n, 0n];
    const xp = ePow(X, P);
    expect(ePow(ePow(xp, P), P)).toEqual(X);
    // r(x) = x^p - x mod f; a cubic is irreducible iff it has no root in F_p iff gcd(r, f) = 1.
    const r = eSub(xp, X);
    const polyMod = (a: bigint[], b: bigint[]): bigint[] => {
      const out = a.slice();
      const lead = inv(b[b.length - 1]);
      for (let i = out.length - 1; i >= b.length - 1; i--) {
        const c = (out[i] * lead) % P;
        for (let j = 0; j < b.length; j++) out[i - (b.length - 1) + j] = sub(out[i - (b.length - 1) + j], mul(c, b[j]));
      }
      const rem = out.slice(0, b.length - 1);
      while (rem.length && rem[rem.length - 1] === 0n) rem.pop();
      return rem;
    };
    let a: bigint[] = [P - 1n, P - 1n, 0n, 1n]; // f = x^3 - x - 1
    let b: bigint[] = [...r];
    while (b.length && b[b.length - 1] === 0n) b.pop();
    while (b.length > 0) [a, b] = [b, polyMod(a, b)];
    expect(a.length).toBe(1); // the gcd is a nonzero constant
    // And directly: f has no root among a sample of field elements, and x·x^2 = x + 1.
    expect(eMul(X, [0n, 0n, 1n])).toEqual([1n, 1n, 0n]);
  });
  it('field laws', () => {
    fc.assert(
      fc.property(ext, ext, ext, (a, b, c) => {
        expect(eMul(a, b)).toEqual(eMul(b, a));
        expect(eMul(eMul(a, b), c)).toEqual(eMul(a, eMul(b, c)));
        expect(eMul(a, eAdd(b, c))).toEqual(eAdd(eMul(a, b), eMul(a, c)));
        expect(eSub(eAdd(a, b), b)).toEqual(a);
        expect(eAdd(a, eNeg(a))).toEqual([0n, 0n, 0n]);
      }),
      { numRuns: 200 },
    );
  });
  it('inverses, Frobenius order and batch inversion', () => {
    fc.assert(
      fc.property(extNonzero, (a) => {
        expect(eMul(a, eInv(a))).toEqual([1n, 0n, 0n]);
      }),
      { numRuns: 100 },
    );
    // The multiplicative group has order p^3 - 1.
    expect(ePow([3n, 5n, 11n], P * P * P - 1n)).toEqual([1n, 0n, 0n]);
    expect(() => eInv([0n, 0n, 0n])).toThrow();
    const xs: Fp3[] = Array.from({ length: 20 }, (_, i) => [BigInt(i + 1), BigInt(3 * i), BigInt(i * i)] as Fp3);
    const bi = eBatchInv(xs);
    xs.forEach((x, i) => expect(eEq(bi[i], eInv(x))).toBe(true));
  });
});
