import { keccak_256 } from '@noble/hashes/sha3';

/**
 * Hyperlane's message as its Mailbox encodes it (Message.sol, version 3) and its id, the
 * keccak-256 of those bytes — what relayers, explorers and the destination mailbox call the
 * message id — with a warp route's body (TokenMessage.sol: recipient ‖ amount ‖ metadata). The
 * local chain B's Mailbox dispatches with it (ledger.ts); lib/bridge/hyperlane.ts re-exports it.
 * Checked against `@hyperlane-xyz/utils` (test/unit/bridge/message-ids.test.ts).
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
