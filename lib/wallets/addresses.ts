import { PublicKey } from '@solana/web3.js';
import { errors } from '#lib/errors.ts';

/**
 * A base58 address, or 400 with `code` (INVALID_MINT for mints). Its own module, not
 * lib/wallets/wallets.ts's: web3.js is parsed only by the functions that read chain A addresses.
 */
export function chainAAddress(value: string, field: string, invalid = errors.invalidInput): PublicKey {
  try {
    return new PublicKey(value);
  } catch {
    throw invalid(`${field}: not a chain A address`);
  }
}
