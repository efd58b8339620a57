import * as z from 'zod';
import { errors } from '#lib/errors.ts';

/**
 * Amounts arrive as JSON numbers in whole units (`amount` 1.5, as functions/docs/openapi.json shows) and leave as decimal
 * strings of smallest units. The conversion never goes through floating-point arithmetic: the
 * number's shortest round-trip decimal form (what JSON carried, `String(1.1)` is "1.1") is split
 * into digits and scaled as an integer, so 1.1 SOL is exactly 1100000000 lamports.
 */
export const amountInput = z.number({ error: (i) => (i.input === undefined ? 'is required' : 'must be a number') });

/** Token amounts are u64 on chain A. */
export const MAX_UNITS = (1n << 64n) - 1n;

/** The exact decimal digits of a finite number: `[integer digits, fraction digits]`. */
function decimalDigits(x: number): [string, string] {
  const s = String(x);
  const m = /^(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/.exec(s);
  if (!m) throw errors.invalidInput('amount: must be a positive decimal number');
  let int = m[1]!;
  let frac = m[2] ?? '';
  const exp = Number(m[3] ?? 0);
  if (exp > 0) {
    const take = frac.padEnd(exp, '0');
    int += take.slice(0, exp);
    frac = take.slice(exp);
  } else if (exp < 0) {
    const pad = int.padStart(-exp + 1, '0');
    frac = pad.slice(pad.length + exp) + frac;
    int = pad.slice(0, pad.length + exp);
  }
  return [int.replace(/^0+(?=\d)/, ''), frac.replace(/0+$/, '')];
}

/** Whole units (a JSON number) → smallest units; 400 INVALID_INPUT for zero, negative, too precise or too large. */
export function toUnits(amount: number, decimals: number, field = 'amount'): bigint {
  if (typeof amount !== 'number' || !Number.isFinite(amount)) throw errors.invalidInput(`${field}: must be a finite number`);
  if (amount <= 0) throw errors.invalidInput(`${field}: must be greater than 0`);
  const [int, frac] = decimalDigits(amount);
  if (frac.length > decimals) throw errors.invalidInput(`${field}: at most ${decimals} decimal places for this asset`);
  const units = BigInt(int + frac.padEnd(decimals, '0'));
  if (units === 0n) throw errors.invalidInput(`${field}: must be greater than 0`);
  if (units > MAX_UNITS) throw errors.invalidInput(`${field}: too large`);
  return units;
}

/** Smallest units → the exact decimal in whole units ("1.5", "0.000001", "12"). */
export function formatUnits(units: bigint, decimals: number): string {
  const neg = units < 0n;
  const s = (neg ? -units : units).toString().padStart(decimals + 1, '0');
  const int = s.slice(0, s.length - decimals);
  const frac = decimals ? s.slice(s.length - decimals).replace(/0+$/, '') : '';
  return `${neg ? '-' : ''}${int}${frac ? `.${frac}` : ''}`;
}
