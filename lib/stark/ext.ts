// Cubic extension F_{p^3} = F_p[x]/(x^3 - x - 1), the one Winterfell and Miden use for Goldilocks.
// x^3 - x - 1 has no root in F_p, so (degree 3) it is irreducible and this is a field of ~2^192
// elements (test/unit/stark/field.test.ts checks irreducibility). Every verifier challenge lives
// here, which puts the field-size terms of the soundness error near 2^-180, far below the query term.
import { P as MODULUS, inv, writeFelt, readFelt } from './field.ts';

// A module-local copy: hot loops read it as a plain constant, not through an import binding.
const P = MODULUS;

/** a0 + a1 x + a2 x^2. */
export type Fp3 = readonly [bigint, bigint, bigint];
export const EXT_DEGREE = 3;
export const EXT_BYTES = 24;
export const E_ZERO: Fp3 = [0n, 0n, 0n];
export const E_ONE: Fp3 = [1n, 0n, 0n];

export function eFrom(a: bigint): Fp3 {
  return [a, 0n, 0n];
}
export function eAdd(a: Fp3, b: Fp3): Fp3 {
  return [(a[0] + b[0]) % P, (a[1] + b[1]) % P, (a[2] + b[2]) % P];
}
export function eSub(a: Fp3, b: Fp3): Fp3 {
  return [(a[0] - b[0] + P) % P, (a[1] - b[1] + P) % P, (a[2] - b[2] + P) % P];
}
export function eNeg(a: Fp3): Fp3 {
  return eSub(E_ZERO, a);
}
/** Unreduced product coefficients of degree 0..4 folded with x^3 = x + 1, x^4 = x^2 + x. */
export function eMul(a: Fp3, b: Fp3): Fp3 {
  const [a0, a1, a2] = a;
  const [b0, b1, b2] = b;
  const c3 = a1 * b2 + a2 * b1;
  const c4 = a2 * b2;
  return [(a0 * b0 + c3) % P, (a0 * b1 + a1 * b0 + c3 + c4) % P, (a0 * b2 + a1 * b1 + a2 * b0 + c4) % P];
}
export function eMulBase(a: Fp3, b: bigint): Fp3 {
  return [(a[0] * b) % P, (a[1] * b) % P, (a[2] * b) % P];
}
export function ePow(a: Fp3, e: bigint): Fp3 {
  let r: Fp3 = E_ONE;
  let b = a;
  while (e > 0n) {
    if (e & 1n) r = eMul(r, b);
    b = eMul(b, b);
    e >>= 1n;
  }
  return r;
}
/**
 * Inverse by Cramer's rule on the 3x3 matrix of multiplication by a (columns: a, a·x, a·x^2 in the
 * basis 1, x, x^2); its determinant is the norm of a, nonzero for a ≠ 0 since the extension is a field.
 */
export function eInv(a: Fp3): Fp3 {
  const [a0, a1, a2] = a;
  const m00 = a0,
    m01 = a2,
    m02 = a1;
  const m10 = a1,
    m11 = (a0 + a2) % P,
    m12 = (a1 + a2) % P;
  const m20 = a2,
    m21 = a1,
    m22 = (a0 + a2) % P;
  const c0 = (((m11 * m22 - m12 * m21) % P) + P) % P;
  const c1 = (((m12 * m20 - m10 * m22) % P) + P) % P;
  const c2 = (((m10 * m21 - m11 * m20) % P) + P) % P;
  const det = (m00 * c0 + m01 * c1 + m02 * c2) % P;
  if (det === 0n) throw new Error('ext: inverse of zero');
  const d = inv(det);
  return [(c0 * d) % P, (c1 * d) % P, (c2 * d) % P];
}
export function eEq(a: Fp3, b: Fp3): boolean {
  return a[0] === b[0] && a[1] === b[1] && a[2] === b[2];
}
export function eBatchInv(xs: readonly Fp3[]): Fp3[] {
  const n = xs.length;
  const out = new Array<Fp3>(n);
  let acc: Fp3 = E_ONE;
  for (let i = 0; i < n; i++) {
    out[i] = acc;
    acc = eMul(acc, xs[i]);
  }
  let invAcc = eInv(acc);
  for (let i = n - 1; i >= 0; i--) {
    out[i] = eMul(out[i], invAcc);
    invAcc = eMul(invAcc, xs[i]);
  }
  return out;
}
export function writeExt(buf: Uint8Array, offset: number, a: Fp3): void {
  writeFelt(buf, offset, a[0]);
  writeFelt(buf, offset + 8, a[1]);
  writeFelt(buf, offset + 16, a[2]);
}
export function readExt(buf: Uint8Array, offset: number): Fp3 | null {
  const x = readFelt(buf, offset);
  const y = readFelt(buf, offset + 8);
  const z = readFelt(buf, offset + 16);
  return x === null || y === null || z === null ? null : [x, y, z];
}
export function extsToBytes(xs: readonly Fp3[]): Uint8Array {
  const out = new Uint8Array(xs.length * EXT_BYTES);
  for (let i = 0; i < xs.length; i++) writeExt(out, i * EXT_BYTES, xs[i]);
  return out;
}
