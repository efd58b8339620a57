import { keccak_256 } from '@noble/hashes/sha3';
import { PublicKey } from '@solana/web3.js';

/**
 * Hyperlane's message as its Mailbox encodes it (Message.sol, version 3) and its id, the
 * keccak-256 of those bytes — what relayers, explorers and the destination mailbox call the
 * message id — with a warp route's body (TokenMessage.sol: recipient ‖ amount ‖ metadata).
 * Checked against `@hyperlane-xyz/utils` (test/unit/bridge/hyperlane.test.ts).
 */
export const MESSAGE_VERSION = 3;

export interface HyperlaneMessage {
  version?: number;
  nonce: number;
  originDomain: number;
  /** 32 bytes: the origin warp router. */
  sender: Uint8Array;
  destinationDomain: number;
  /** 32 bytes: the destination warp router. */
  recipient: Uint8Array;
  body: Uint8Array;
}

const u32 = (n: number): Uint8Array => {
  if (!Number.isInteger(n) || n < 0 || n > 0xffffffff) throw new RangeError(`not a uint32: ${n}`);
  const b = new Uint8Array(4);
  new DataView(b.buffer).setUint32(0, n);
  return b;
};

function uint256(n: bigint): Uint8Array {
  if (n < 0n || n >= 1n << 256n) throw new RangeError('not a uint256');
  return Uint8Array.from(Buffer.from(n.toString(16).padStart(64, '0'), 'hex'));
}

function bytes32(b: Uint8Array): Uint8Array {
  if (b.length !== 32) throw new RangeError(`expected 32 bytes, got ${b.length}`);
  return b;
}

const concat = (...parts: Uint8Array[]): Uint8Array => Uint8Array.from(Buffer.concat(parts));

export function formatMessage(m: HyperlaneMessage): Uint8Array {
  const version = m.version ?? MESSAGE_VERSION;
  if (!Number.isInteger(version) || version < 0 || version > 255) throw new RangeError('version is a uint8');
  return concat(Uint8Array.of(version), u32(m.nonce), u32(m.originDomain), bytes32(m.sender), u32(m.destinationDomain), bytes32(m.recipient), m.body);
}

export const messageId = (message: Uint8Array): string => `0x${Buffer.from(keccak_256(message)).toString('hex')}`;

/** A warp route transfer's body: the recipient (32 bytes) and the amount (uint256), then optional metadata. */
export const tokenMessage = (recipient: Uint8Array, amount: bigint, metadata: Uint8Array = new Uint8Array()): Uint8Array =>
  concat(bytes32(recipient), uint256(amount), metadata);

/** A Solana (Sealevel) address as Hyperlane's 32 bytes: the public key itself. */
export const sealevelBytes32 = (address: string): Uint8Array => new PublicKey(address).toBytes();

/** A Starknet address (a felt, 0x-hex) as 32 bytes, left-padded. */
export function starknetBytes32(address: string): Uint8Array {
  if (!/^0x[0-9a-fA-F]{1,64}$/.test(address)) throw new RangeError('not a Starknet address');
  return Uint8Array.from(Buffer.from(address.slice(2).padStart(64, '0'), 'hex'));
}

/** An EVM address (20 bytes, 0x-hex) as 32 bytes, left-padded. */
export function evmBytes32(address: string): Uint8Array {
  if (!/^0x[0-9a-fA-F]{40}$/.test(address)) throw new RangeError('not an EVM address');
  return Uint8Array.from(Buffer.from(address.slice(2).padStart(64, '0'), 'hex'));
}
