import { CallData, cairo, hash, type Call } from 'starknet';
import { toHex, toHex64 } from './felts.ts';

/**
 * Chain B's ERC-20 tokens. STRK (the fee token) and ETH live at the same addresses on Starknet
 * mainnet and Sepolia (StarkGate's deployments), 18 decimals each; the local ledger keeps them at
 * those addresses too, so an address is valid on every network. Other tokens (the bridge's) are
 * known by their address and the metadata registered when first minted.
 */
export interface TokenInfo {
  address: string;
  symbol: string;
  name: string;
  decimals: number;
}

export const STRK: TokenInfo = {
  address: toHex64('0x04718f5a0fc34cc1af16a1cdee98ffb20c31f5cd61d6ab07201858f4287c938d'),
  symbol: 'STRK',
  name: 'Starknet Token',
  decimals: 18,
};
export const ETH: TokenInfo = {
  address: toHex64('0x049d36570d4e46f48e99674bd3fcc84644ddd6b96f7c741b1562b82f9e004dc7'),
  symbol: 'ETH',
  name: 'Ether',
  decimals: 18,
};
export const BUILTIN_TOKENS: readonly TokenInfo[] = [STRK, ETH];
/** Fees are paid in STRK (V3 transactions, unit FRI = 10^-18 STRK). */
export const FEE_TOKEN = STRK;

export const builtinToken = (symbolOrAddress: string): TokenInfo | undefined => {
  const s = symbolOrAddress.toUpperCase();
  return BUILTIN_TOKENS.find((t) => t.symbol === s || (isFelt(symbolOrAddress) && t.address === toHex64(symbolOrAddress)));
};

/** A felt in 0x-hex, below 2^251 (contract addresses are below 2^251 − 256). */
export const isFelt = (s: string): boolean => /^0x[0-9a-fA-F]{1,64}$/.test(s) && BigInt(s) < 2n ** 251n;
/**
 * A contract address: a felt other than 0 below 2^251 − 256, Starknet's bound (the OS computes
 * addresses modulo it and starknet.js's validateAndParseAddress refuses anything at or above it:
 * the last 256 values of a 251-bit storage key are reserved), not merely a felt below 2^251.
 */
export const isContractAddress = (s: string): boolean => isFelt(s) && BigInt(s) > 0n && BigInt(s) < 2n ** 251n - 256n;

/** The one check of a chain B address at the edge: the address 0x-padded to 64 lower-case digits, or undefined. */
export const contractAddress = (s: string): string | undefined => (isContractAddress(s) ? `0x${BigInt(s).toString(16).padStart(64, '0')}` : undefined);

/** What a refused address is told (with the field's name before it). */
export const CONTRACT_ADDRESS_RULE = 'not a chain B address (0x-hex felt, nonzero, below 2^251 - 256)';

/** keys[0] of an ERC-20 Transfer event and the transfer entry point's selector. */
export const TRANSFER_EVENT_KEY = toHex(hash.getSelectorFromName('Transfer'));

const U128 = 1n << 128n;
/** A u256 as Cairo serialises it: [low, high]. */
export const u256Felts = (x: bigint): [string, string] => [toHex(x % U128), toHex(x / U128)];
export const u256FromFelts = (low: bigint, high: bigint): bigint => low + high * U128;
export const U256_MAX = (1n << 256n) - 1n;

/**
 * The Transfer event of OpenZeppelin's ERC20 (Contracts for Cairo v1.0.0): `from` and `to` are
 * keys, the u256 value is data.
 */
export const transferEvent = (token: string, from: string, to: string, value: bigint) => ({
  fromAddress: toHex64(token),
  keys: [TRANSFER_EVENT_KEY, toHex(from), toHex(to)],
  data: u256Felts(value),
});

/** Decimal whole units ("1.5") → smallest units, exactly; null when malformed or too precise. */
export function parseUnits(amount: string, decimals: number): bigint | null {
  const m = /^(\d{1,78})(?:\.(\d{1,78}))?$/.exec(amount);
  if (!m) return null;
  const frac = (m[2] ?? '').replace(/0+$/, '');
  if (frac.length > decimals) return null;
  return BigInt(m[1]! + frac.padEnd(decimals, '0'));
}

/** Smallest units → the exact decimal in whole units ("1.5", "0.000001", "12"). */
export function formatUnits(units: bigint, decimals: number): string {
  const s = units.toString().padStart(decimals + 1, '0');
  const int = s.slice(0, s.length - decimals);
  const frac = decimals ? s.slice(s.length - decimals).replace(/0+$/, '') : '';
  return frac ? `${int}.${frac}` : int;
}

/** The ERC-20 `transfer(recipient, amount: u256)` call. */
export const transferCall = (token: string, to: string, amount: bigint): Call => ({
  contractAddress: toHex64(token),
  entrypoint: 'transfer',
  calldata: CallData.compile({ recipient: to, amount: cairo.uint256(amount) }),
});
