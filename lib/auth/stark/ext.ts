// Quadratic extension F_{p^2} = F_p[u]/(u^2 - 7). 7 generates F_p^*, so it is a non-residue and
// u^2 - 7 is irreducible. Every verifier challenge lives here (~2^128 elements), which lifts the
// field-size term of the soundness error far above the query term.
import { P, inv, randomFelt, writeFelt, readFelt } from './field.ts';

export type Fp2 = readonly [bigint, bigint];
export const NON_RESIDUE = 7n;
export const E_ZERO: Fp2 = [0n, 0n];
export const E_ONE: Fp2 = [1n, 0n];

export function eFrom(a: bigint): Fp2 {
  return [a, 0n];
}
export function eAdd(a: Fp2, b: Fp2): Fp2 {
  let x = a[0] + b[0];
  if (x >= P) x -= P;
  let y = a[1] + b[1];
  if (y >= P) y -= P;
  return [x, y];
}
export function eSub(a: Fp2, b: Fp2): Fp2 {
  let x = a[0] - b[0];
  if (x < 0n) x += P;
  let y = a[1] - b[1];
  if (y < 0n) y += P;
  return [x, y];
}
export function eNeg(a: Fp2): Fp2 {
  return [a[0] === 0n ? 0n : P - a[0], a[1] === 0n ? 0n : P - a[1]];
}
export function eMul(a: Fp2, b: Fp2): Fp2 {
  // (a0 + a1 u)(b0 + b1 u) = a0 b0 + 7 a1 b1 + (a0 b1 + a1 b0) u; one reduction per coordinate.
  return [(a[0] * b[0] + NON_RESIDUE * a[1] * b[1]) % P, (a[0] * b[1] + a[1] * b[0]) % P];
}
export function eMulBase(a: Fp2, b: bigint): Fp2 {
  return [(a[0] * b) % P, (a[1] * b) % P];
}
export function eSquare(a: Fp2): Fp2 {
  return eMul(a, a);
}
export function ePow(a: Fp2, e: bigint): Fp2 {
  let r: Fp2 = E_ONE;
  let b = a;
  while (e > 0n) {
    if (e & 1n) r = eMul(r, b);
    b = eMul(b, b);
    e >>= 1n;
  }
  return r;
}
export function eInv(a: Fp2): Fp2 {
  // 1/(a0 + a1 u) = (a0 - a1 u) / (a0^2 - 7 a1^2); the norm is nonzero for a ≠ 0 by irreducibility.
  const norm = ((a[0] * a[0]) % P - (NON_RESIDUE * a[1] * a[1]) % P + P) % P;
  const n = inv(norm);
  return [(a[0] * n) % P, ((P - a[1]) * n) % P];
}
export function eEq(a: Fp2, b: Fp2): boolean {
  return a[0] === b[0] && a[1] === b[1];
}
export function eIsZero(a: Fp2): boolean {
  return a[0] === 0n && a[1] === 0n;
}
export function eRandom(): Fp2 {
  return [randomFelt(), randomFelt()];
}
export function eBatchInv(xs: readonly Fp2[]): Fp2[] {
  const n = xs.length;
  const out = new Array<Fp2>(n);
  let acc: Fp2 = E_ONE;
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
export function writeExt(buf: Uint8Array, offset: number, a: Fp2): void {
  writeFelt(buf, offset, a[0]);
  writeFelt(buf, offset + 8, a[1]);
}
export function readExt(buf: Uint8Array, offset: number): Fp2 | null {
  const x = readFelt(buf, offset);
  const y = readFelt(buf, offset + 8);
  return x === null || y === null ? null : [x, y];
}
export function extsToBytes(xs: readonly Fp2[]): Uint8Array {
  const out = new Uint8Array(xs.length * 16);
  for (let i = 0; i < xs.length; i++) writeExt(out, i * 16, xs[i]);
  return out;
}
