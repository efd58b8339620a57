import { describe, it, expect } from 'vitest';
import { P, pow, rootOfUnity, randomFelt } from '../../../lib/stark/field.ts';
import { ntt, intt, cosetEvaluate, cosetInterpolate, evalBase, evalBaseAtExt, evalExtAtExt, evalExtAtBase } from '../../../lib/stark/poly.ts';
import { type Fp3, eAdd, eMul, eFrom } from '../../../lib/stark/ext.ts';

const rand = (n: number) => Array.from({ length: n }, () => randomFelt());

describe('NTT and polynomials', () => {
  it('NTT / inverse NTT round trip', () => {
    for (const n of [1, 2, 8, 64, 1024]) {
      const a = rand(n);
      expect(intt(ntt(a))).toEqual(a);
      expect(ntt(intt(a))).toEqual(a);
    }
  });
  it('NTT evaluates at the powers of the root of unity', () => {
    const c = rand(16);
    const e = ntt(c);
    const w = rootOfUnity(16);
    for (let i = 0; i < 16; i++) expect(e[i]).toBe(evalBase(c, pow(w, BigInt(i))));
  });
  it('coset low-degree extension agrees with direct evaluation and round-trips', () => {
    const c = rand(32);
    const e = cosetEvaluate(c, 7n, 256);
    const w = rootOfUnity(256);
    for (const i of [0, 1, 77, 255]) expect(e[i]).toBe(evalBase(c, (7n * pow(w, BigInt(i))) % P));
    const back = cosetInterpolate(e, 7n);
    expect(back.slice(0, 32)).toEqual(c);
    expect(back.slice(32).every((x) => x === 0n)).toBe(true);
  });
  it('extension-point evaluation agrees with Horner over F_p^3', () => {
    const c = rand(20);
    const c1 = rand(20);
    const c2 = rand(20);
    const z: Fp3 = [randomFelt(), randomFelt(), randomFelt()];
    let acc: Fp3 = [0n, 0n, 0n];
    let accX: Fp3 = [0n, 0n, 0n];
    for (let i = 19; i >= 0; i--) {
      acc = eAdd(eMul(acc, z), eFrom(c[i]));
      accX = eAdd(eMul(accX, z), [c[i], c1[i], c2[i]]);
    }
    expect(evalBaseAtExt(c, z)).toEqual(acc);
    expect(evalExtAtExt(c, c1, c2, z)).toEqual(accX);
    const x = randomFelt();
    expect(
      evalExtAtBase(
        c.map((v, i) => [v, c1[i], c2[i]] as Fp3),
        x,
      ),
    ).toEqual([evalBase(c, x), evalBase(c1, x), evalBase(c2, x)]);
  });
});
