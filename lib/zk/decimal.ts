/**
 * The toolkit's number format and its two layers of checks.
 *
 * - Format (zod, → 400 INVALID_INPUT by the HTTP layer): a decimal string of 1–78 ASCII digits,
 *   nothing else (no sign, space, `0x`, exponent). Leading zeros are accepted ("007" is 7): they
 *   are unambiguous in base 10, and every result is written back in canonical form. 78 digits is
 *   the length of 2^256 − 1, so no legal value needs more.
 * - Range (here, at run time, → 400 FIELD_OVERFLOW or INVALID_INPUT): a field element must be
 *   < r and is never reduced; other integers (exponents, scalars) have their own bound.
 *
 * The parsers re-check the format too, so a caller that skipped the schema still cannot pass a
 * malformed value through.
 */
import * as z from 'zod';
import { errors } from '#lib/errors.ts';
import { BN254_R } from './bn254.ts';

/** The BN254 scalar field prime r (the order of the BN254 G1 group; circom's default prime). */

export const MAX_DIGITS = 78;
export const TWO_256 = 1n << 256n;
const DECIMAL_RE = /^[0-9]{1,78}$/;

export const DECIMAL_MESSAGE = 'must be a decimal string of digits (0-9, at most 78)';

/** zod `error` callback: "is required" for a missing field, else the given sentence. */
const typeError = (message: string) => (issue: { input?: unknown }) => (issue.input === undefined ? 'is required' : message);

/** A decimal string of digits, 1–78 long. */
export const decimalString = z.string({ error: typeError(DECIMAL_MESSAGE) }).regex(DECIMAL_RE, DECIMAL_MESSAGE);

/** A Baby JubJub point as sent over HTTP. */
export const pointSchema = z.object({ x: decimalString, y: decimalString }, { error: typeError('must be an object {x, y} of decimal strings') });

/** An integer in [min, max] sent as a JSON number (not a string). */
export const integerIn = (min: number, max: number) =>
  z
    .number({ error: typeError(`must be an integer from ${min} to ${max}`) })
    .int({ error: `must be an integer from ${min} to ${max}` })
    .min(min, { error: `must be an integer from ${min} to ${max}` })
    .max(max, { error: `must be an integer from ${min} to ${max}` });

export const isDecimalString = (v: unknown): v is string => typeof v === 'string' && DECIMAL_RE.test(v);

/** Any decimal string → bigint; INVALID_INPUT naming the field otherwise. */
export function parseDecimal(name: string, value: unknown): bigint {
  if (!isDecimalString(value)) throw errors.invalidInput(`${name}: ${DECIMAL_MESSAGE}`);
  return BigInt(value);
}

/** A field element: decimal and < r, else FIELD_OVERFLOW. Never reduced. */
export function fieldElement(name: string, value: unknown): bigint {
  const v = parseDecimal(name, value);
  if (v >= BN254_R) throw errors.fieldOverflow(`${name} must be less than the BN254 prime`);
  return v;
}

/** For values computed in code rather than parsed: a bigint outside [0, r) is FIELD_OVERFLOW. */
export function assertField(name: string, v: bigint): bigint {
  if (v < 0n || v >= BN254_R) throw errors.fieldOverflow(`${name} must be less than the BN254 prime`);
  return v;
}

/** A non-negative integer below 2^256 (exponents, curve scalars): INVALID_INPUT beyond. */
export function uint256(name: string, value: unknown): bigint {
  const v = parseDecimal(name, value);
  if (v >= TWO_256) throw errors.invalidInput(`${name}: must be less than 2^256`);
  return v;
}

/** `0x` + 64 lower-case hex digits of a 256-bit big-endian integer. */
export const toHex32 = (v: bigint): string => '0x' + v.toString(16).padStart(64, '0');

export const bytesToHex = (b: Uint8Array): string => '0x' + Buffer.from(b).toString('hex');
