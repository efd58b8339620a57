import bs58 from 'bs58';
import { CONTRACT_ADDRESS_RULE, contractAddress, isFelt } from '#lib/chains/chain-b/tokens.ts';
import { errors } from '#lib/errors.ts';

/** The bridge's input forms, checked at the edge of lib/bridge (pure: tested without a runtime). */

/** A chain B (Starknet) contract address (lib/chains/chain-b/tokens.ts `contractAddress`), 0x-padded to 64 digits, lower case. */
export function chainBAddress(value: string): string {
  const address = contractAddress(value);
  if (!address) throw errors.invalidAddress(`destAddress: ${CONTRACT_ADDRESS_RULE}`);
  return address;
}

/** Decimal string in whole units → smallest units; 400 INVALID_AMOUNT for anything else. */
export function parseAmount(value: string, decimals: number, max: bigint): bigint {
  const m = /^(\d{1,40})(?:\.(\d{1,40}))?$/.exec(value);
  if (!m) throw errors.invalidAmount('amount: must be a positive decimal string in whole units, like "1.5"');
  const frac = m[2] ?? '';
  if (frac.length > decimals) throw errors.invalidAmount(`amount: at most ${decimals} decimals for this token`);
  const units = BigInt(m[1]!) * 10n ** BigInt(decimals) + BigInt(frac.padEnd(decimals, '0') || '0');
  if (units === 0n) throw errors.invalidAmount('amount: must be greater than zero');
  if (units > max) throw errors.invalidAmount('amount: too large for the source chain');
  return units;
}

export const U64_MAX = (1n << 64n) - 1n;
export const U256_MAX = (1n << 256n) - 1n;

/** A source transaction id in its chain's form: a chain A signature (base58, 64 bytes) or an Ethereum hash (lower-cased); else 400. */
export function sourceTxHash(bridgeType: 'chaina-chainb' | 'ethereum-chainb', txHash: string): string {
  if (bridgeType === 'chaina-chainb') {
    let bytes = 0;
    try {
      bytes = bs58.decode(txHash).length;
    } catch {
      bytes = 0;
    }
    if (bytes !== 64) throw errors.invalidInput('txHash: not a chain A transaction signature (base58, 64 bytes)');
    return txHash;
  }
  if (!/^0x[0-9a-fA-F]{64}$/.test(txHash)) throw errors.invalidInput('txHash: not an Ethereum transaction hash (0x and 64 hex digits)');
  return txHash.toLowerCase();
}

/** A chain A address (base58, 32 bytes), for a withdrawal's destAddress; else 400 INVALID_ADDRESS. */
export function chainAAddress(value: string): string {
  let bytes: Uint8Array | undefined;
  try {
    bytes = bs58.decode(value);
  } catch {
    bytes = undefined;
  }
  if (bytes?.length !== 32) throw errors.invalidAddress('destAddress: not a chain A address (base58, 32 bytes)');
  return bs58.encode(bytes);
}

/** A chain B transaction hash (0x-hex felt), returned 0x-padded to 64 digits; else 400. */
export function chainBTxHash(txHash: string): string {
  if (!isFelt(txHash)) throw errors.invalidInput('txHash: not a chain B transaction hash (0x-hex felt)');
  return `0x${BigInt(txHash).toString(16).padStart(64, '0')}`;
}
