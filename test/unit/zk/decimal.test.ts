import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { decimalString, fieldElement, integerIn, parseDecimal, pointSchema, toHex32, uint256 } from '#lib/zk/decimal.ts';
import { expectAppError } from './helpers.ts';
import { BN254_R } from '#lib/zk/bn254.ts';

const R = BN254_R;

describe('decimalString (format only)', () => {
  it('accepts 1 to 78 digits, leading zeros included', () => {
    for (const ok of ['0', '7', '007', '1'.repeat(78), (2n ** 256n - 1n).toString(), '0'.repeat(78)]) {
      expect(decimalString.safeParse(ok).success, ok).toBe(true);
    }
  });

  it('rejects signs, spaces, hex, exponents, fractions, non-ASCII digits, empty and over-long strings, non-strings', () => {
    const bad: unknown[] = [
      '',
      '-1',
      '+1',
      ' 1',
      '1 ',
      '1\n',
      '0x10',
      '0b1',
      '1e3',
      '1.0',
      '1_000',
      '１２',
      '٣',
      '1'.repeat(79),
      1,
      1n,
      null,
      undefined,
      ['1'],
      { v: '1' },
    ];
    for (const v of bad) expect(decimalString.safeParse(v).success, JSON.stringify(String(v))).toBe(false);
  });

  it('says "is required" for a missing field and names the format otherwise', () => {
    expect(decimalString.safeParse(undefined).error?.issues[0].message).toBe('is required');
    expect(decimalString.safeParse(12).error?.issues[0].message).toMatch(/decimal string of digits/);
    expect(decimalString.safeParse('-1').error?.issues[0].message).toMatch(/decimal string of digits/);
  });

  it('pointSchema wants {x, y} decimal strings', () => {
    expect(pointSchema.safeParse({ x: '0', y: '1' }).success).toBe(true);
    expect(pointSchema.safeParse(['0', '1']).success).toBe(false);
    expect(pointSchema.safeParse({ x: '0' }).error?.issues[0].path).toEqual(['y']);
  });

  it('integerIn wants a JSON integer in range, not a numeric string', () => {
    const s = integerIn(2, 255);
    expect(s.safeParse(2).success).toBe(true);
    expect(s.safeParse(255).success).toBe(true);
    for (const v of [1, 256, 2.5, '3', NaN, Infinity, null]) expect(s.safeParse(v).success, String(v)).toBe(false);
    expect(s.safeParse(undefined).error?.issues[0].message).toBe('is required');
  });
});

describe('parsers (range, errors naming the field)', () => {
  it('fieldElement keeps values below r unchanged, canonicalising leading zeros', () => {
    expect(fieldElement('a', '0')).toBe(0n);
    expect(fieldElement('a', '00042')).toBe(42n);
    expect(fieldElement('a', (R - 1n).toString())).toBe(R - 1n);
  });

  it('fieldElement: r and above is FIELD_OVERFLOW, never reduced', async () => {
    await expectAppError(() => fieldElement('a', R.toString()), 'FIELD_OVERFLOW', 'a must be less than the BN254 prime');
    await expectAppError(() => fieldElement('p1.x', (R + 1n).toString()), 'FIELD_OVERFLOW', 'p1.x must be less than the BN254 prime');
    await expectAppError(() => fieldElement('b', '9'.repeat(78)), 'FIELD_OVERFLOW', 'b must be less than');
  });

  it('fieldElement / parseDecimal: malformed is INVALID_INPUT naming the field', async () => {
    await expectAppError(() => fieldElement('a', '-5'), 'INVALID_INPUT', 'a: must be a decimal string of digits');
    await expectAppError(() => fieldElement('inputs.3', 5), 'INVALID_INPUT', 'inputs.3: must be a decimal string');
    await expectAppError(() => parseDecimal('exp', '1'.repeat(79)), 'INVALID_INPUT', 'exp: must be a decimal string');
    await expectAppError(() => parseDecimal('exp', undefined), 'INVALID_INPUT', 'exp:');
  });

  it('uint256 accepts up to 2^256 − 1 and rejects 2^256 with INVALID_INPUT', async () => {
    expect(uint256('scalar', (2n ** 256n - 1n).toString())).toBe(2n ** 256n - 1n);
    expect(uint256('scalar', R.toString())).toBe(R); // not a field element: r itself is a fine scalar
    await expectAppError(() => uint256('scalar', (2n ** 256n).toString()), 'INVALID_INPUT', 'scalar: must be less than 2^256');
  });

  it('round-trips any value below r (property)', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: R - 1n }), fc.nat(5), (v, zeros) => {
        const s = '0'.repeat(zeros) + v.toString();
        fc.pre(s.length <= 78);
        expect(fieldElement('a', s)).toBe(v);
      }),
    );
  });

  it('toHex32 is 0x + 64 lower-case hex digits', () => {
    expect(toHex32(0n)).toBe('0x' + '0'.repeat(64));
    expect(toHex32(255n)).toBe('0x' + '0'.repeat(62) + 'ff');
    expect(toHex32(R - 1n)).toBe('0x30644e72e131a029b85045b68181585d2833e84879b9709143e1f593f0000000');
  });
});
