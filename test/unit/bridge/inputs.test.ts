import bs58 from 'bs58';
import { describe, expect, it } from 'vitest';
import { chainAAddress, chainBAddress, chainBTxHash, parseAmount, sourceTxHash, U64_MAX } from '#lib/bridge/inputs.ts';

const code = (fn: () => unknown) => {
  try {
    fn();
  } catch (e) {
    return (e as { code?: string }).code;
  }
  return 'no error';
};

describe('bridge inputs', () => {
  it('amounts: exact decimal strings to smallest units, never through floating point', () => {
    expect(parseAmount('1.5', 9, U64_MAX)).toBe(1_500_000_000n);
    expect(parseAmount('0.1', 18, U64_MAX)).toBe(100_000_000_000_000_000n);
    expect(parseAmount('007.000001', 6, U64_MAX)).toBe(7_000_001n);
    expect(parseAmount('18446744073.709551615', 9, U64_MAX)).toBe(U64_MAX);
    for (const bad of ['0', '0.000', '-1', '1e3', '1.', '.5', ' 1', '1,5', '0x10', ''])
      expect(
        code(() => parseAmount(bad, 9, U64_MAX)),
        bad,
      ).toBe('INVALID_AMOUNT');
    expect(code(() => parseAmount('1.0000000001', 9, U64_MAX))).toBe('INVALID_AMOUNT');
    expect(code(() => parseAmount('18446744073.709551616', 9, U64_MAX))).toBe('INVALID_AMOUNT');
  });

  it("chain B addresses: non-zero felts below 2^251 - 256 (Starknet's contract address bound), normalised to 64 lower-case digits", () => {
    expect(chainBAddress('0xABC')).toBe(`0x${'0'.repeat(61)}abc`);
    const top = (1n << 251n) - 257n;
    expect(chainBAddress(`0x${top.toString(16)}`)).toBe(`0x${top.toString(16).padStart(64, '0')}`);
    const atBound = `0x${((1n << 251n) - 256n).toString(16)}`;
    for (const bad of [
      '0x0',
      atBound,
      `0x7${'f'.repeat(62)}`,
      `0x8${'0'.repeat(62)}`,
      'abc',
      '0x',
      `0x${'1'.repeat(65)}`,
      'EfSiyLayPpfZ7uGetjmjxYh6r3LjoJjmHkkxRJmDpgaT',
    ]) {
      expect(
        code(() => chainBAddress(bad)),
        bad,
      ).toBe('INVALID_ADDRESS');
    }
  });

  it("source transaction ids in the source chain's form", () => {
    const sig = bs58.encode(new Uint8Array(64).fill(7));
    expect(sourceTxHash('chaina-chainb', sig)).toBe(sig);
    expect(code(() => sourceTxHash('chaina-chainb', bs58.encode(new Uint8Array(32).fill(7))))).toBe('INVALID_INPUT');
    expect(code(() => sourceTxHash('chaina-chainb', '0OIl'))).toBe('INVALID_INPUT');
    expect(sourceTxHash('ethereum-chainb', `0x${'AB'.repeat(32)}`)).toBe(`0x${'ab'.repeat(32)}`);
    expect(code(() => sourceTxHash('ethereum-chainb', sig))).toBe('INVALID_INPUT');
  });

  it('withdrawals: destAddress is a chain A address (base58, 32 bytes); the source is a chain B transaction hash', () => {
    const key = bs58.encode(Uint8Array.from({ length: 32 }, (_, i) => i + 1));
    expect(chainAAddress(key)).toBe(key);
    expect(chainAAddress('11111111111111111111111111111111')).toBe('11111111111111111111111111111111');
    for (const bad of [`0x${'ab'.repeat(32)}`, bs58.encode(new Uint8Array(31).fill(7)), bs58.encode(new Uint8Array(64).fill(7)), 'not base58 0OIl', '']) {
      expect(
        code(() => chainAAddress(bad)),
        bad,
      ).toBe('INVALID_ADDRESS');
    }
    expect(chainBTxHash('0xABC')).toBe(`0x${'0'.repeat(61)}abc`);
    for (const bad of [bs58.encode(new Uint8Array(64).fill(1)), '0x', `0x8${'0'.repeat(62)}`, `0x${'1'.repeat(65)}`])
      expect(
        code(() => chainBTxHash(bad)),
        bad,
      ).toBe('INVALID_INPUT');
  });
});
