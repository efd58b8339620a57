import { PublicKey } from '@solana/web3.js';

/**
 * Hyperlane's message and id (lib/chains/chain-b/hyperlane-message.ts, shared with the local
 * chain B's Mailbox) and the chains' addresses as Hyperlane's 32 bytes.
 */
export { formatMessage, MESSAGE_VERSION, messageId, tokenMessage, type HyperlaneMessage } from '#lib/chains/chain-b/hyperlane-message.ts';

/** A Solana (Sealevel) address as Hyperlane's 32 bytes: the public key itself. */
export const sealevelBytes32 = (address: string): Uint8Array => new PublicKey(address).toBytes();

/** A Starknet address (a felt, 0x-hex) as 32 bytes, left-padded. */
export function starknetBytes32(address: string): Uint8Array {
  if (!/^0x[0-9a-fA-F]{1,64}$/.test(address)) throw new RangeError('not a Starknet address');
  return Uint8Array.from(Buffer.from(address.slice(2).padStart(64, '0'), 'hex'));
}
