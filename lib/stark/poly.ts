// Polynomials over F_p (and F_{p^3} where noted): radix-2 NTT, coset low-degree extension, Horner.
import { P as MODULUS, inv, rootOfUnity } from './field.ts';
import { type Fp3, eMul } from './ext.ts';

// A module-local copy: hot loops read it as a plain constant, not through an import binding.
const P = MODULUS;

const twiddleCache = new Map<string, bigint[]>();
/** Powers root^0 .. root^(n/2 - 1) of the n-th root of unity (or its inverse). */
function twiddles(n: number, inverse: boolean): bigint[] {
  const key = `${n}:${inverse ? 1 : 0}`;
  let t = twiddleCache.get(key);
  if (!t) {
    const w0 = rootOfUnity(n);
    const w = inverse ? inv(w0) : w0;
    t = new Array<bigint>(n >> 1);
    let acc = 1n;
    for (let i = 0; i < n >> 1; i++) {
      t[i] = acc;
      acc = (acc * w) % P;
    }
    twiddleCache.set(key, t);
  }
  return t;
}

function bitReverse(a: bigint[]): void {
  const n = a.length;
  for (let i = 1, j = 0; i < n; i++) {
    let bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) {
      const t = a[i];
      a[i] = a[j];
      a[j] = t;
    }
  }
}

function nttInPlace(a: bigint[], inverse: boolean): void {
  const n = a.length;
  if ((n & (n - 1)) !== 0) throw new Error('ntt: length must be a power of two');
  bitReverse(a);
  const tw = twiddles(n, inverse);
  for (let len = 2; len <= n; len <<= 1) {
    const half = len >> 1;
    const step = n / len;
    for (let i = 0; i < n; i += len) {
      for (let j = 0; j < half; j++) {
        const u = a[i + j];
        const v = (a[i + j + half] * tw[j * step]) % P;
        const s = u + v;
        a[i + j] = s >= P ? s - P : s;
        const d = u - v;
        a[i + j + half] = d < 0n ? d + P : d;
      }
    }
  }
}

/** Evaluations at w^0..w^(n-1) of the polynomial with the given coefficients (w primitive n-th root). */
export function ntt(coeffs: readonly bigint[]): bigint[] {
  const a = coeffs.slice();
  nttInPlace(a, false);
  return a;
}
/** Coefficients of the polynomial taking the given values at w^0..w^(n-1). */
export function intt(evals: readonly bigint[]): bigint[] {
  const a = evals.slice();
  nttInPlace(a, true);
  const nInv = inv(BigInt(a.length));
  for (let i = 0; i < a.length; i++) a[i] = (a[i] * nInv) % P;
  return a;
}
/** Evaluations of `coeffs` (length ≤ size) over the coset offset·<w_size>. */
export function cosetEvaluate(coeffs: readonly bigint[], offset: bigint, size: number): bigint[] {
  if (coeffs.length > size) throw new Error('coset: polynomial longer than domain');
  const a = new Array<bigint>(size).fill(0n);
  let s = 1n;
  for (let i = 0; i < coeffs.length; i++) {
    a[i] = (coeffs[i] * s) % P;
    s = (s * offset) % P;
  }
  nttInPlace(a, false);
  return a;
}
/** Inverse of cosetEvaluate: coefficients from evaluations over offset·<w_n>. */
export function cosetInterpolate(evals: readonly bigint[], offset: bigint): bigint[] {
  const c = intt(evals);
  const oInv = inv(offset);
  let s = 1n;
  for (let i = 0; i < c.length; i++) {
    c[i] = (c[i] * s) % P;
    s = (s * oInv) % P;
  }
  return c;
}
/** Base-field polynomial at a base point. */
export function evalBase(coeffs: readonly bigint[], x: bigint): bigint {
  let acc = 0n;
  for (let i = coeffs.length - 1; i >= 0; i--) acc = (acc * x + coeffs[i]) % P;
  return acc;
}
/** Base-field polynomial at an extension point (Horner in F_{p^3}). */
export function evalBaseAtExt(coeffs: readonly bigint[], z: Fp3): Fp3 {
  let acc: Fp3 = [0n, 0n, 0n];
  for (let i = coeffs.length - 1; i >= 0; i--) {
    const m = eMul(acc, z);
    acc = [(m[0] + coeffs[i]) % P, m[1], m[2]];
  }
  return acc;
}
/** Extension polynomial given as three coordinate coefficient vectors, at an extension point. */
export function evalExtAtExt(c0: readonly bigint[], c1: readonly bigint[], c2: readonly bigint[], z: Fp3): Fp3 {
  let acc: Fp3 = [0n, 0n, 0n];
  for (let i = c0.length - 1; i >= 0; i--) {
    const m = eMul(acc, z);
    acc = [(m[0] + c0[i]) % P, (m[1] + c1[i]) % P, (m[2] + c2[i]) % P];
  }
  return acc;
}
/** Extension polynomial (coefficients in F_{p^3}) at a base point. */
export function evalExtAtBase(coeffs: readonly Fp3[], x: bigint): Fp3 {
  let a0 = 0n;
  let a1 = 0n;
  let a2 = 0n;
  for (let i = coeffs.length - 1; i >= 0; i--) {
    a0 = (a0 * x + coeffs[i][0]) % P;
    a1 = (a1 * x + coeffs[i][1]) % P;
    a2 = (a2 * x + coeffs[i][2]) % P;
  }
  return [a0, a1, a2];
}
