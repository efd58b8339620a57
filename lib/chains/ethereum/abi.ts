import { keccak_256 } from '@noble/hashes/sha3';

/**
 * The little of the Ethereum ABI the bridge needs, on @noble/hashes' keccak: function selectors,
 * event topics, static arguments (address, uint, bool, bytes32: one 32-byte word each) and the
 * words of log data. Dynamic types are decoded where a caller needs them (an offset word, then a
 * length and the items).
 */
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

const keccakHex = (text: string): string => `0x${hex(keccak_256(new TextEncoder().encode(text)))}`;

/** The 4-byte selector of `name(types)`, e.g. `deposit(address,uint256,uint256)`. */
export const functionSelector = (signature: string): string => keccakHex(signature).slice(0, 10);

/** topics[0] of an event, e.g. `Deposit(address,address,uint256,uint256,uint256,uint256)`. */
export const eventTopic = (signature: string): string => keccakHex(signature);

export type StaticArg = bigint | number | string | boolean;

/** One 32-byte word: numbers as unsigned big-endian, 0x-hex strings (addresses, bytes32 right-aligned as numbers) likewise. */
export function word(v: StaticArg): string {
  const n = typeof v === 'boolean' ? (v ? 1n : 0n) : BigInt(v);
  if (n < 0n || n >= 1n << 256n) throw new RangeError('abi: a word is 0 ≤ n < 2^256');
  return n.toString(16).padStart(64, '0');
}

/** Calldata of a call with static arguments only. */
export const encodeCall = (signature: string, args: readonly StaticArg[]): string => functionSelector(signature) + args.map(word).join('');

/** A bytes32 holding a short ASCII string left-aligned (as Solidity's `bytes32("USDC")`). */
export function bytes32String(s: string): bigint {
  const b = Buffer.from(s, 'utf8');
  if (b.length > 32) throw new RangeError('abi: at most 32 bytes');
  return BigInt(`0x${b.toString('hex').padEnd(64, '0')}`);
}

/** The 32-byte words of log data or a return value, as numbers. */
export function words(data: string): bigint[] {
  const h = data.startsWith('0x') ? data.slice(2) : data;
  if (h.length % 64 !== 0 || !/^[0-9a-fA-F]*$/.test(h)) throw new RangeError('abi: data is not whole 32-byte words');
  const out: bigint[] = [];
  for (let i = 0; i < h.length; i += 64) out.push(BigInt(`0x${h.slice(i, i + 64)}`));
  return out;
}

/** A `uint256[]` at word `headIndex`'s offset (bytes) within `w`. */
export function uintArrayAt(w: readonly bigint[], headIndex: number): bigint[] {
  const offset = w[headIndex];
  if (offset === undefined || offset % 32n !== 0n) throw new RangeError('abi: bad array offset');
  const start = Number(offset / 32n);
  const length = w[start];
  if (length === undefined || BigInt(start) + 1n + length > BigInt(w.length)) throw new RangeError('abi: array runs past the data');
  return w.slice(start + 1, start + 1 + Number(length));
}

/** An address from a word (its low 20 bytes), lower-case 0x-hex; undefined when the high bytes are not zero. */
export function addressOf(w: bigint | string | undefined): string | undefined {
  if (w === undefined) return undefined;
  const n = BigInt(w);
  if (n >> 160n !== 0n) return undefined;
  return `0x${n.toString(16).padStart(40, '0')}`;
}
