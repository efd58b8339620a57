/**
 * Shamir secret sharing over the BN254 scalar field. A share is the string "i:value": the
 * polynomial's value at x = i (1 ≤ i ≤ 255) in decimal. `split` draws the t−1 coefficients
 * fresh from a cryptographic source on every call; `combine` interpolates at 0.
 *
 * Combining fewer shares than the split's threshold yields a wrong secret, not an error: by
 * design the shares carry no threshold (that is what makes t−1 shares reveal nothing).
 */
import { errors } from '#lib/errors.ts';
import { fieldElement } from './decimal.ts';
import * as F from './field.ts';
import { BN254_R } from './bn254.ts';

export const MIN_THRESHOLD = 2;
/** Share indices are 1..255 (one byte, as in most Shamir tools), so at most 255 shares. */
export const MAX_SHARES = 255;

export interface Share {
  index: number;
  value: bigint;
}

/** Fresh shares of `secret` (< r): any `threshold` of the `total` recover it. */
export function split(secret: bigint, threshold: number, total: number): Share[] {
  if (!Number.isInteger(threshold) || threshold < MIN_THRESHOLD || threshold > MAX_SHARES) {
    throw errors.invalidInput(`threshold: must be an integer from ${MIN_THRESHOLD} to ${MAX_SHARES}`);
  }
  if (!Number.isInteger(total) || total < threshold || total > MAX_SHARES) {
    throw errors.invalidInput(`shares: must be an integer from threshold (${threshold}) to ${MAX_SHARES}`);
  }
  if (secret < 0n || secret >= BN254_R) throw errors.fieldOverflow('secret must be less than the BN254 prime');
  const coeffs = [secret];
  for (let i = 1; i < threshold; i++) coeffs.push(F.random());
  const shares: Share[] = [];
  for (let x = 1; x <= total; x++) {
    // Horner, from the top coefficient down.
    let y = 0n;
    for (let j = coeffs.length - 1; j >= 0; j--) y = F.add(F.mul(y, BigInt(x)), coeffs[j]);
    shares.push({ index: x, value: y });
  }
  return shares;
}

export const formatShare = (s: Share): string => `${s.index}:${s.value}`;

const SHARE_RE = /^([0-9]{1,78}):([0-9]{1,78})$/;

/** "i:value" → Share; INVALID_SHARES when malformed or the index is out of 1..255. */
export function parseShare(name: string, raw: unknown): Share {
  const m = typeof raw === 'string' ? SHARE_RE.exec(raw) : null;
  if (!m) throw errors.invalidShares(`${name}: a share must be a string "index:value" of decimal digits`);
  const index = BigInt(m[1]);
  if (index === 0n) throw errors.invalidShares(`${name}: share index 0 is not allowed (it would be the secret itself)`);
  if (index > BigInt(MAX_SHARES)) throw errors.invalidShares(`${name}: share index must be from 1 to ${MAX_SHARES}`);
  // A value ≥ r is a field overflow like any other element (never reduced).
  return { index: Number(index), value: fieldElement(`${name} value`, m[2]) };
}

/** The secret, f(0), by Lagrange interpolation through all the given shares. */
export function combine(raw: readonly unknown[]): bigint {
  if (!Array.isArray(raw)) throw errors.invalidInput('shares: must be an array of share strings');
  if (raw.length < MIN_THRESHOLD) throw errors.invalidShares(`at least ${MIN_THRESHOLD} shares are required`);
  if (raw.length > MAX_SHARES) throw errors.invalidShares(`at most ${MAX_SHARES} shares`);
  const shares = raw.map((s, i) => parseShare(`shares.${i}`, s));
  const seen = new Set<number>();
  for (const [i, s] of shares.entries()) {
    if (seen.has(s.index)) throw errors.invalidShares(`shares.${i}: repeated share index ${s.index}`);
    seen.add(s.index);
  }
  let secret = 0n;
  for (const si of shares) {
    // L_i(0) = Π_{j≠i} x_j / (x_j − x_i); the x are distinct and non-zero, so no zero divisor.
    let num = 1n;
    let den = 1n;
    for (const sj of shares) {
      if (sj === si) continue;
      num = F.mul(num, BigInt(sj.index));
      den = F.mul(den, F.sub(BigInt(sj.index), BigInt(si.index)));
    }
    secret = F.add(secret, F.mul(si.value, F.mul(num, F.inv(den))));
  }
  return secret;
}

// ---- request level ----

export type SplitData = { shares: string[]; threshold: number; total: number };

export function shamirSplit(req: { secret: string; threshold: number; shares: number }): SplitData {
  const secret = fieldElement('secret', req.secret);
  const shares = split(secret, req.threshold, req.shares);
  return { shares: shares.map(formatShare), threshold: req.threshold, total: req.shares };
}

export function shamirCombine(req: { shares: readonly unknown[] }): { secret: string } {
  return { secret: combine(req.shares).toString() };
}
