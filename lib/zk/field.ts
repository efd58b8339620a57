/**
 * Arithmetic in the BN254 scalar field F_r, in plain bigint: every value in and out is a
 * canonical residue in [0, r). Callers range-check user input first (decimal.ts); these
 * functions assume it and never reduce a caller's value silently.
 */
import { getRandomValues } from 'node:crypto';
import { errors } from '#lib/errors.ts';
import { BN254_R } from './bn254.ts';
import { fieldElement, uint256 } from './decimal.ts';

export const R = BN254_R;

/** r − 1 = 2^S · Q with Q odd (S, the 2-adicity, is 28 for BN254's r). */
export const TWO_ADICITY = 28n;
const Q = (R - 1n) >> TWO_ADICITY;
/** 5 generates F_r^* (the multiplicative generator used by arkworks/gnark): a non-residue. */
export const NON_RESIDUE = 5n;

const mod = (a: bigint): bigint => {
  const m = a % R;
  return m < 0n ? m + R : m;
};

export const add = (a: bigint, b: bigint): bigint => mod(a + b);
export const sub = (a: bigint, b: bigint): bigint => mod(a - b);
export const mul = (a: bigint, b: bigint): bigint => (a * b) % R;
export const neg = (a: bigint): bigint => (a === 0n ? 0n : R - a);

/** a^e for any e ≥ 0 (0^0 = 1, the usual convention). */
export function pow(base: bigint, exp: bigint): bigint {
  if (exp < 0n) throw new RangeError('negative exponent');
  let result = 1n;
  let b = mod(base);
  let e = exp;
  while (e > 0n) {
    if (e & 1n) result = (result * b) % R;
    b = (b * b) % R;
    e >>= 1n;
  }
  return result;
}

/** Multiplicative inverse by the extended Euclidean algorithm; 0 → INVALID_INPUT. */
export function inv(a: bigint, name = 'a'): bigint {
  if (mod(a) === 0n) throw errors.invalidInput(`${name}: zero has no inverse`);
  let [oldR, r] = [mod(a), R];
  let [oldS, s] = [1n, 0n];
  while (r !== 0n) {
    const q = oldR / r;
    [oldR, r] = [r, oldR - q * r];
    [oldS, s] = [s, oldS - q * s];
  }
  return mod(oldS);
}

export function div(a: bigint, b: bigint): bigint {
  if (b === 0n) throw errors.invalidInput('b: division by zero');
  return mul(a, inv(b, 'b'));
}

/** Legendre symbol: 1 for a non-zero square, r − 1 for a non-square, 0 for 0. */
export const legendre = (a: bigint): bigint => pow(a, (R - 1n) >> 1n);

/**
 * Square root by Tonelli–Shanks; returns the smaller of the two roots (the one ≤ (r−1)/2), so
 * the answer is deterministic. A non-residue → INVALID_INPUT.
 */
export function sqrt(a: bigint, name = 'a'): bigint {
  const n = mod(a);
  if (n === 0n) return 0n;
  if (legendre(n) !== 1n) throw errors.invalidInput(`${name}: not a quadratic residue`);
  let m = TWO_ADICITY;
  let c = pow(NON_RESIDUE, Q);
  let t = pow(n, Q);
  let x = pow(n, (Q + 1n) >> 1n);
  while (t !== 1n) {
    // Least i with t^(2^i) = 1; 0 < i < m because t has order dividing 2^(m-1).
    let i = 0n;
    let t2 = t;
    while (t2 !== 1n) {
      t2 = (t2 * t2) % R;
      i++;
    }
    const b = pow(c, 1n << (m - i - 1n));
    m = i;
    c = (b * b) % R;
    t = (t * c) % R;
    x = (x * b) % R;
  }
  const other = R - x;
  return x < other ? x : other;
}

/**
 * Uniform in [0, r): 256 random bits, the top two cleared (r < 2^254), kept only when < r.
 * Rejection keeps it exactly uniform; the acceptance rate is r / 2^254 ≈ 0.76.
 */
export function random(): bigint {
  const buf = new Uint8Array(32);
  for (;;) {
    getRandomValues(buf);
    buf[0] &= 0x3f;
    const v = BigInt('0x' + Buffer.from(buf).toString('hex'));
    if (v < R) return v;
  }
}

// ---- request level: decimal strings in, `{result}` out ----

export type ResultData = { result: string };
type AB = { a: string; b: string };
const ab = (req: AB): [bigint, bigint] => [fieldElement('a', req.a), fieldElement('b', req.b)];

export const fieldAdd = (req: AB): ResultData => ({ result: add(...ab(req)).toString() });
export const fieldSub = (req: AB): ResultData => ({ result: sub(...ab(req)).toString() });
export const fieldMul = (req: AB): ResultData => ({ result: mul(...ab(req)).toString() });
export const fieldDiv = (req: AB): ResultData => ({ result: div(...ab(req)).toString() });
export const fieldInv = (req: { a: string }): ResultData => ({ result: inv(fieldElement('a', req.a)).toString() });
export const fieldPow = (req: { base: string; exp: string }): ResultData => ({
  result: pow(fieldElement('base', req.base), uint256('exp', req.exp)).toString(),
});
export const fieldSqrt = (req: { a: string }): ResultData => ({ result: sqrt(fieldElement('a', req.a)).toString() });
export const fieldRandom = (): ResultData => ({ result: random().toString() });
export const fieldPrime = (): ResultData & { prime: string } => ({ result: R.toString(), prime: R.toString() });
